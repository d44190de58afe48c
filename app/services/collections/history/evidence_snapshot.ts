/*
| How an evidence snapshot is kept at rest (decisions.md §5: stored exactly as
| captured, encrypted), with the application key: the format and the sealing of an
| event are in evidence_cipher.ts; this module holds the key and opens what is stored.
|
| The fast cipher (evidence_cipher.ts) is used only after it has opened what the
| application encrypter sealed (the rows stored in the encrypter's text format) and
| what it sealed itself; otherwise every call goes through the encrypter, whose text
| format is then stored as bytes. The key is read on
| first use (never when this module loads: a command module importing config while
| ace loads it would freeze an empty key, tests/functional/foundation).
*/
import { createHash, createSecretKey, hkdfSync } from 'node:crypto'
import encryption from '@adonisjs/core/services/encryption'
import settings from '#config/settings'
import type {
  EvidenceFacts,
  OpenedSnapshot,
  StoredProjection,
} from '#services/collections/history/projection'
import {
  evidenceCipher,
  projectionPurpose,
  sealEvidenceWith,
  snapshotPlaintext,
  snapshotPurpose,
  type CipherKey,
  type EvidenceCipher,
  type Sealable,
  type Sealed,
  type SealedEvidence,
} from '#services/collections/history/evidence_cipher'

export type Snapshot = OpenedSnapshot

/** Encrypted snapshots over this many bytes are never read. */
export const SNAPSHOT_READ_BOUND_BYTES = 2 * 1024 * 1024

let cipherKey: CipherKey | null | undefined
let fastCipher: EvidenceCipher | null = null

/**
 * The encrypter's key id and AES-256-GCM key, for sealing off the application's
 * thread, or null when the fast cipher and the encrypter do not read each other.
 */
export function evidenceCipherKey(): CipherKey | null {
  if (cipherKey !== undefined) return cipherKey
  cipherKey = null
  try {
    const id = encryption.encrypt('probe', undefined, 'probe').split('.')[0]
    const candidateKey: CipherKey = {
      id,
      key: createSecretKey(
        Buffer.from(
          hkdfSync(
            'sha256',
            createHash('sha256').update(settings.appKeyText()).digest(),
            Buffer.alloc(0),
            Buffer.from(`aes-256-gcm:v1:${id}`),
            32
          )
        )
      ),
    }
    const candidate = evidenceCipher(candidateKey)
    const probe = 'tprobe \u2028 "quoted" \\ é'
    const purpose = snapshotPurpose('probe')
    // The same key as the encrypter's: what it sealed opens here (rows stored before
    // the compact format), and what is sealed here opens here.
    const weRead = candidate.open(encryption.encrypt(probe, undefined, purpose), purpose) === probe
    const roundTrip = candidate.open(candidate.seal(probe, purpose), purpose) === probe
    if (weRead && roundTrip) {
      cipherKey = candidateKey
      fastCipher = candidate
    }
  } catch {
    cipherKey = null
  }
  return cipherKey
}

/**
 * Seals under the application key: compact with the fast cipher when it is proven,
 * else in the encrypter's text format (stored as its bytes).
 */
export function seal(value: Sealable, purpose: string): Buffer {
  return evidenceCipherKey() && fastCipher
    ? fastCipher.seal(value, purpose)
    : Buffer.from(encryption.encrypt(value, undefined, purpose))
}

export function sealSnapshot(
  evidenceId: string,
  snapshot: Snapshot
): { ciphertext: Buffer; size: number } {
  const ciphertext = seal(snapshotPlaintext(snapshot), snapshotPurpose(evidenceId))
  return { ciphertext, size: ciphertext.length }
}

/** sealEvidenceWith (evidence_cipher.ts) under the application key. */
export function sealEvidence(
  evidenceId: string,
  facts: Omit<EvidenceFacts, 'hasSnapshot' | 'snapshotSize'>,
  snapshot: OpenedSnapshot | null
): SealedEvidence {
  return sealEvidenceWith(seal, evidenceId, facts, snapshot)
}

export function sealProjection(evidenceId: string, projection: StoredProjection): Buffer {
  return seal(projection, projectionPurpose(evidenceId))
}

/** The sealed value, or null when it does not open under `purpose`. */
function openSealed(sealed: Sealed, purpose: string): unknown {
  if (evidenceCipherKey() && fastCipher) return fastCipher.open(sealed, purpose) ?? null
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
