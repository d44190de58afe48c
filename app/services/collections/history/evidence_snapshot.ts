/*
| How an evidence snapshot is kept at rest (decisions.md §5: stored exactly as
| captured, encrypted), with the application key: the format and the sealing of an
| event are in evidence_cipher.ts; this module holds the key and opens what is stored.
|
| Seals are compact, under the service's own key. Seals in the encrypter's text format
| (rows stored before migration 1100) are opened with the encrypter's key once it has
| opened what the encrypter sealed, and by the encrypter itself otherwise. The keys
| are made on first use (never when this module loads: a command module importing
| config while ace loads it would freeze an empty key, tests/functional/foundation).
*/
import encryption from '@adonisjs/core/services/encryption'
import { textFormatKey } from '#platform/encrypter_text_format'
import settings from '#config/settings'
import type { OpenedSnapshot, StoredProjection } from '#services/collections/history/projection'
import {
  evidenceCipher,
  projectionPurpose,
  snapshotPlaintext,
  snapshotPurpose,
  evidenceSealKey,
  type EvidenceCipher,
  type EvidenceKeys,
  type Sealable,
  type Sealed,
} from '#services/collections/history/evidence_cipher'

export type Snapshot = OpenedSnapshot

let keys: EvidenceKeys | undefined
let cipher: EvidenceCipher

/**
 * The keys of evidence seals (evidence_cipher.ts), made on first use: the compact
 * seals' own, and the encrypter's key when what the encrypter seals opens with it.
 */
export function evidenceKeys(): EvidenceKeys {
  if (keys !== undefined) return keys
  const appKey = settings.appKeyText()
  keys = { seal: evidenceSealKey(appKey), textFormat: textFormatKey(appKey, encryption) }
  cipher = evidenceCipher(keys)
  return keys
}

/** Seals compactly under the service's own key (evidence_cipher.ts). */
export function seal(value: Sealable, purpose: string): Buffer {
  evidenceKeys()
  return cipher.seal(value, purpose)
}

export function sealSnapshot(
  evidenceId: string,
  snapshot: Snapshot
): { ciphertext: Buffer; size: number } {
  const ciphertext = seal(snapshotPlaintext(snapshot), snapshotPurpose(evidenceId))
  return { ciphertext, size: ciphertext.length }
}

export function sealProjection(evidenceId: string, projection: StoredProjection): Buffer {
  return seal(projection, projectionPurpose(evidenceId))
}

/** The sealed value, or null when it does not open under `purpose`. */
function openSealed(sealed: Sealed, purpose: string): unknown {
  evidenceKeys()
  const opened = cipher.open(sealed, purpose)
  // null: a text-format seal the encrypter's key was not proven for.
  if (opened !== null) return opened ?? null
  try {
    return encryption.decrypt(
      typeof sealed === 'string' ? sealed : Buffer.from(sealed).toString('utf8'),
      purpose
    )
  } catch {
    return null
  }
}

/** The stored projection, or null when it does not open under this row's purpose. */
export function openProjection(evidenceId: string, ciphertext: Sealed): StoredProjection | null {
  const opened = openSealed(ciphertext, projectionPurpose(evidenceId))
  if (opened === null || typeof opened !== 'object' || Array.isArray(opened)) return null
  const projection = opened as StoredProjection
  return typeof projection.capture_status === 'string' && Array.isArray(projection.omissions)
    ? projection
    : null
}

/** The stored snapshot, or null when it cannot be decrypted or is malformed. */
export function openSnapshot(evidenceId: string, ciphertext: Sealed): Snapshot | null {
  const plaintext = openSealed(ciphertext, snapshotPurpose(evidenceId))
  if (typeof plaintext !== 'string' || plaintext.length === 0) return null
  const tag = plaintext[0]
  if (tag === 'j') return { kind: 'json', text: plaintext.slice(1) }
  if (tag === 't') return { kind: 'text', text: plaintext.slice(1) }
  return null
}
