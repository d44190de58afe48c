/*
| How an evidence snapshot is kept at rest (decisions.md §5: stored exactly as
| captured, encrypted). The plaintext is a one-character tag and the body: `j` + the
| JSON text of a `body`, or `t` + a non-JSON `body_text`. It is encrypted with the
| application key (AES-256-GCM) under a purpose naming the evidence id, so a
| ciphertext cannot be moved to another row. `snapshot_size` stores the ciphertext's
| byte length, so an oversize snapshot is withheld without reading it (portal-api.md:
| encrypted snapshots over 2 MiB are withheld unread).
|
| Beside it, the snapshot's projection (app/history/projection.ts) is sealed the same
| way under its own purpose, once, when the evidence is written (decisions.md §5):
| a history read opens only that small, bounded object, never the snapshot.
*/
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto'
import encryption from '@adonisjs/core/services/encryption'
import env from '#start/env'
import {
  PROJECTION_VERSION,
  projectSnapshot,
  type EvidenceFacts,
  type OpenedSnapshot,
  type StoredProjection,
} from '#history/projection'

export type Snapshot = { kind: 'json'; text: string } | { kind: 'text'; text: string }

/** Encrypted snapshots over this many bytes are never read. */
export const SNAPSHOT_READ_BOUND_BYTES = 2 * 1024 * 1024

const purposeOf = (evidenceId: string) => `exchange-evidence:${evidenceId}`
const projectionPurposeOf = (evidenceId: string) => `exchange-evidence-projection:${evidenceId}`

export function sealSnapshot(
  evidenceId: string,
  snapshot: Snapshot
): { ciphertext: string; size: number } {
  const plaintext = (snapshot.kind === 'json' ? 'j' : 't') + snapshot.text
  const ciphertext = seal(plaintext, purposeOf(evidenceId))
  return { ciphertext, size: Buffer.byteLength(ciphertext) }
}

function seal(value: Sealable, purpose: string): string {
  const cipher = fastCipher()
  return cipher ? cipher.seal(value, purpose) : encryption.encrypt(value, undefined, purpose)
}

/** The evidence columns written for one event: its sealed snapshot and projection. */
export interface SealedEvidence {
  snapshotCiphertext: string | null
  snapshotSize: number | null
  projectionCiphertext: string | null
  projectionVersion: number | null
}

/**
 * Seals an event's snapshot and, when a read may show it, its projection. `facts`
 * are the event's columns; their `hasSnapshot` and `snapshotSize` are taken from the
 * sealing here.
 */
export function sealEvidence(
  evidenceId: string,
  facts: Omit<EvidenceFacts, 'hasSnapshot' | 'snapshotSize'>,
  snapshot: OpenedSnapshot | null
): SealedEvidence {
  const sealed = snapshot ? sealSnapshot(evidenceId, snapshot) : null
  const projection = projectSnapshot(
    { ...facts, hasSnapshot: sealed !== null, snapshotSize: sealed?.size ?? null },
    snapshot
  )
  return {
    snapshotCiphertext: sealed?.ciphertext ?? null,
    snapshotSize: sealed?.size ?? null,
    projectionCiphertext: projection ? sealProjection(evidenceId, projection) : null,
    // Projected (even to nothing, when the columns withhold it) with this version.
    projectionVersion: sealed ? PROJECTION_VERSION : null,
  }
}

export function sealProjection(evidenceId: string, projection: StoredProjection): string {
  return seal(projection, projectionPurposeOf(evidenceId))
}

/** The stored projection, or null when it does not open under this row's purpose. */
export function openProjection(evidenceId: string, ciphertext: string): StoredProjection | null {
  const opened = openSealed(ciphertext, projectionPurposeOf(evidenceId))
  if (opened === null || typeof opened !== 'object' || Array.isArray(opened)) return null
  const projection = opened as StoredProjection
  return typeof projection.capture_status === 'string' && Array.isArray(projection.omissions)
    ? projection
    : null
}

/*
| The import seals every event with a body and its projection, and a history page
| opens up to 100 projections; most of the encrypter's time per call went into
| turning its raw key into a key object again (createCipheriv with a Buffer key;
| bench/README.md). The fast cipher writes and reads the encrypter's own AES-256-GCM
| format (`<id>.v1:<ciphertext>.<iv>.<tag>`, base64url, the purpose as additional
| data, the payload as `{"message": ...}`, no expiry) with a key object made once. It
| is used only after the encrypter has opened what it sealed and it has opened what
| the encrypter sealed, so both always read each other; otherwise every call goes
| through the encrypter. The key is read on first use (never when this module loads:
| a command module importing config while ace loads it would freeze an empty key,
| tests/functional/foundation).
*/
type Sealable = string | StoredProjection
interface FastCipher {
  seal(value: Sealable, purpose: string): string
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
let fastCipherInstance: FastCipher | null | undefined

function cipherWithKey(id: string, key: KeyObject): FastCipher {
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

function fastCipher(): FastCipher | null {
  if (fastCipherInstance !== undefined) return fastCipherInstance
  fastCipherInstance = null
  try {
    const id = encryption.encrypt('probe', undefined, 'probe').split('.')[0]
    const key: KeyObject = createSecretKey(
      Buffer.from(
        hkdfSync(
          'sha256',
          createHash('sha256')
            .update(env.get('APP_KEY') ?? '')
            .digest(),
          Buffer.alloc(0),
          Buffer.from(`aes-256-gcm:v1:${id}`),
          32
        )
      )
    )
    const candidate = cipherWithKey(id, key)
    const probe = 'tprobe \u2028 "quoted" \\ é'
    const purpose = purposeOf('probe')
    const theyRead = encryption.decrypt(candidate.seal(probe, purpose), purpose) === probe
    const weRead = candidate.open(encryption.encrypt(probe, undefined, purpose), purpose) === probe
    if (theyRead && weRead) fastCipherInstance = candidate
  } catch {
    fastCipherInstance = null
  }
  return fastCipherInstance
}

/** The sealed value, or null when it does not open under `purpose`. */
function openSealed(sealed: string, purpose: string): unknown {
  const cipher = fastCipher()
  if (cipher) return cipher.open(sealed, purpose) ?? null
  try {
    return encryption.decrypt(sealed, purpose)
  } catch {
    return null
  }
}

/** The stored snapshot, or null when it cannot be decrypted or is malformed. */
export function openSnapshot(evidenceId: string, ciphertext: string): Snapshot | null {
  const plaintext = openSealed(ciphertext, purposeOf(evidenceId))
  if (typeof plaintext !== 'string' || plaintext.length === 0) return null
  const tag = plaintext[0]
  if (tag === 'j') return { kind: 'json', text: plaintext.slice(1) }
  if (tag === 't') return { kind: 'text', text: plaintext.slice(1) }
  return null
}
