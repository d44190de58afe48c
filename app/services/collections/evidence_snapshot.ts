/*
| How an evidence snapshot is kept at rest (decisions.md §5: stored exactly as
| captured, encrypted). The plaintext is a one-character tag and the body: `j` + the
| JSON text of a `body`, or `t` + a non-JSON `body_text`. It is encrypted with the
| application key (AES-256-GCM) under a purpose naming the evidence id, so a
| ciphertext cannot be moved to another row. `snapshot_size` stores the ciphertext's
| byte length, so an oversize snapshot is withheld without reading it (portal-api.md:
| encrypted snapshots over 2 MiB are withheld unread).
*/
import encryption from '@adonisjs/core/services/encryption'

export type Snapshot = { kind: 'json'; text: string } | { kind: 'text'; text: string }

/** Encrypted snapshots over this many bytes are never read. */
export const SNAPSHOT_READ_BOUND_BYTES = 2 * 1024 * 1024

const purposeOf = (evidenceId: string) => `exchange-evidence:${evidenceId}`

export function sealSnapshot(
  evidenceId: string,
  snapshot: Snapshot
): { ciphertext: string; size: number } {
  const plaintext = (snapshot.kind === 'json' ? 'j' : 't') + snapshot.text
  const ciphertext = encryption.encrypt(plaintext, undefined, purposeOf(evidenceId))
  return { ciphertext, size: Buffer.byteLength(ciphertext) }
}

/** The stored snapshot, or null when it cannot be decrypted or is malformed. */
export function openSnapshot(evidenceId: string, ciphertext: string): Snapshot | null {
  let plaintext: unknown
  try {
    plaintext = encryption.decrypt(ciphertext, purposeOf(evidenceId))
  } catch {
    return null
  }
  if (typeof plaintext !== 'string' || plaintext.length === 0) return null
  const tag = plaintext[0]
  if (tag === 'j') return { kind: 'json', text: plaintext.slice(1) }
  if (tag === 't') return { kind: 'text', text: plaintext.slice(1) }
  return null
}
