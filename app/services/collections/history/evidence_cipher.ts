/*
| How evidence is sealed at rest, without the application container, so that the
| import's preparation thread (import_preparation_worker.ts) seals exactly as the
| server reads (evidence_snapshot.ts holds the key and the encrypter fallback).
|
| - A snapshot's plaintext is a one-character tag and the body: `j` + the JSON text of
|   a `body`, or `t` + a non-JSON `body_text`.
| - Beside it, its projection (app/services/collections/history/project_evidence.ts) is sealed under its own
|   purpose, once, when the evidence is written (decisions.md §5).
| - Each is sealed under a purpose naming the evidence id (the additional data of
|   AES-256-GCM), so a ciphertext cannot be moved to another row.
| - The format is the application encrypter's own (`<id>.v1:<ciphertext>.<iv>.<tag>`,
|   base64url, the payload as `{"message": ...}`, no expiry), with a key object made
|   once: turning the raw key into a key object on every call was most of a seal's
|   cost (bench/README.md).
*/
import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto'
import {
  PROJECTION_VERSION,
  type EvidenceFacts,
  type OpenedSnapshot,
  type StoredProjection,
} from '#services/collections/history/projection'
import { projectSnapshot } from '#services/collections/history/project_evidence'

export type Sealable = string | StoredProjection
/** Seals a value under a purpose, in the encrypter's format. */
export type Seal = (value: Sealable, purpose: string) => string

export const snapshotPurpose = (evidenceId: string) => `exchange-evidence:${evidenceId}`
export const projectionPurpose = (evidenceId: string) =>
  `exchange-evidence-projection:${evidenceId}`

/** The encrypter's key id and its AES-256-GCM key (a KeyObject crosses to a worker). */
export interface CipherKey {
  id: string
  key: KeyObject
}

export interface EvidenceCipher {
  seal: Seal
  /** The sealed value, or undefined when it does not open under `purpose`. */
  open(sealed: string, purpose: string): unknown
}

/** Random IVs drawn 4 KiB at a time (one call per 341 seals); no byte is used twice. */
let ivPool = Buffer.alloc(0)
let ivAt = 0
function nextIv() {
  if (ivAt + 12 > ivPool.length) {
    ivPool = randomBytes(4092)
    ivAt = 0
  }
  ivAt += 12
  return ivPool.subarray(ivAt - 12, ivAt)
}

export function evidenceCipher({ id, key }: CipherKey): EvidenceCipher {
  return {
    seal(value, purpose) {
      const iv = nextIv()
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 })
      cipher.setAAD(Buffer.from(purpose), { plaintextLength: Buffer.byteLength(purpose) })
      const body = Buffer.concat([
        cipher.update(JSON.stringify({ message: value })),
        cipher.final(),
      ])
      return `${id}.v1:${body.toString('base64url')}.${iv.toString('base64url')}.${cipher
        .getAuthTag()
        .toString('base64url')}`
    },
    open(sealed, purpose) {
      const parts = sealed.split('.')
      if (parts.length !== 4 || parts[0] !== id || !parts[1].startsWith('v1:')) return undefined
      const iv = Buffer.from(parts[2], 'base64url')
      const tag = Buffer.from(parts[3], 'base64url')
      if (iv.length !== 12 || tag.length !== 16) return undefined
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 })
        decipher.setAAD(Buffer.from(purpose), { plaintextLength: Buffer.byteLength(purpose) })
        decipher.setAuthTag(tag)
        const plain = Buffer.concat([
          decipher.update(Buffer.from(parts[1].slice(3), 'base64url')),
          decipher.final(),
        ])
        const payload = JSON.parse(plain.toString('utf8'))
        return payload !== null && typeof payload === 'object' && !('expiryDate' in payload)
          ? payload.message
          : undefined
      } catch {
        return undefined
      }
    },
  }
}

/** The evidence columns written for one event: its sealed snapshot and projection. */
export interface SealedEvidence {
  snapshotCiphertext: string | null
  snapshotSize: number | null
  projectionCiphertext: string | null
  projectionVersion: number | null
}

/** A snapshot's plaintext as stored: its tag and its text. */
export const snapshotPlaintext = (snapshot: OpenedSnapshot) =>
  (snapshot.kind === 'json' ? 'j' : 't') + snapshot.text

/**
 * Seals an event's snapshot and, when a read may show it, its projection. `facts`
 * are the event's columns; their `hasSnapshot` and `snapshotSize` are taken from the
 * sealing here. `snapshotSize` is the ciphertext's byte length, so an oversize
 * snapshot is withheld without reading it (portal-api.md: encrypted snapshots over
 * 2 MiB are withheld unread).
 */
export function sealEvidenceWith(
  seal: Seal,
  evidenceId: string,
  facts: Omit<EvidenceFacts, 'hasSnapshot' | 'snapshotSize'>,
  snapshot: OpenedSnapshot | null
): SealedEvidence {
  const ciphertext = snapshot
    ? seal(snapshotPlaintext(snapshot), snapshotPurpose(evidenceId))
    : null
  const size = ciphertext === null ? null : Buffer.byteLength(ciphertext)
  const projection = projectSnapshot(
    { ...facts, hasSnapshot: ciphertext !== null, snapshotSize: size },
    snapshot
  )
  return {
    snapshotCiphertext: ciphertext,
    snapshotSize: size,
    projectionCiphertext: projection ? seal(projection, projectionPurpose(evidenceId)) : null,
    // Projected (even to nothing, when the columns withhold it) with this version.
    projectionVersion: ciphertext !== null ? PROJECTION_VERSION : null,
  }
}
