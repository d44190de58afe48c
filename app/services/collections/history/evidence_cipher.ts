/*
| How evidence is sealed at rest, without the application container, so that the
| import's preparation thread (import_preparation_worker.ts) seals exactly as the
| server reads (evidence_snapshot.ts holds the keys and opens text-format seals).
|
| - A snapshot's plaintext is a one-character tag and the body: `j` + the JSON text of
|   a `body`, or `t` + a non-JSON `body_text`.
| - Beside it, its projection (app/services/collections/history/project_evidence.ts) is
|   sealed under its own purpose, once, when the evidence is written (decisions.md §5):
|   its plaintext is the projection's JSON text.
| - Each is sealed under a purpose naming the evidence id (the additional data of
|   AES-256-GCM), so a ciphertext cannot be moved to another row.
| - Stored as bytes (bytea), compact (docs/operations.md › Evidence storage): a marker
|   byte, the plaintext's encoding (and whether it is a value's JSON text), the 12-byte IV, the 16-byte tag, the ciphertext.
|   Text the bodies and projections repeat (field names, states) is written as one
|   byte each (seal_tokens.ts) when the plaintext allows it; otherwise it is stored as
|   it is. 30 bytes of envelope, where the application encrypter's text format
|   (`<id>.v1:<ciphertext>.<iv>.<tag>`, base64url, the plaintext as the JSON text of
|   `{"message": ...}`) took a third more than the plaintext plus about 60 bytes.
| - Compact seals are made under a key of the service's own, derived from APP_KEY
|   (evidenceSealKey), so they never depend on how the framework's encrypter derives
|   its keys.
| - Seals in the application encrypter's text format (every row written before
|   migration 1100) are still opened: their first byte is the key id's, never the
|   marker; with the encrypter's key when it is proven
|   (app/platform/encrypter_text_format.ts), else by the encrypter.
| - Key objects are made once: turning the raw key into a key object on every call was
|   most of a seal's cost (bench/README.md).
*/
import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto'
import {
  PROJECTION_VERSION,
  type EvidenceFacts,
  type OpenedSnapshot,
  type StoredProjection,
} from '#services/collections/history/projection'
import { projectSnapshot } from '#services/collections/history/project_evidence'
import { withTokens, withoutTokens } from '#services/collections/history/seal_tokens'
import { openTextFormat, type TextFormatKey } from '#platform/encrypter_text_format'

export type Sealable = string | StoredProjection
/** Seals a value under a purpose: the stored bytes. */
export type Seal = (value: Sealable, purpose: string) => Buffer
/** A stored seal: bytes (bytea), or a seal in the encrypter's text format. */
export type Sealed = Uint8Array | string

export const snapshotPurpose = (evidenceId: string) => `exchange-evidence:${evidenceId}`
export const projectionPurpose = (evidenceId: string) =>
  `exchange-evidence-projection:${evidenceId}`

/** First byte of a compact seal: not ASCII, so never the start of a text-format seal. */
export const COMPACT_SEAL_MARKER = 0xe5
// The second byte: how the plaintext is encoded, and whether it is JSON text of a value.
const RAW = 0
const TOKENS_1 = 1
const JSON_VALUE = 0x80
const HEADER_BYTES = 2
const IV_BYTES = 12
const TAG_BYTES = 16
/** Bytes a compact seal adds to its (possibly tokenized) plaintext. */
export const COMPACT_SEAL_OVERHEAD = HEADER_BYTES + IV_BYTES + TAG_BYTES

/**
 * The keys of evidence seals (KeyObjects cross to a worker): `seal`, the service's own
 * AES-256-GCM key for compact seals, derived from APP_KEY by evidenceSealKey; and the
 * application encrypter's key id and key, to open text-format seals without the
 * encrypter, once proven (evidence_snapshot.ts), else null.
 */
export interface EvidenceKeys {
  seal: KeyObject
  textFormat: TextFormatKey | null
}

/** The compact seals' key: HKDF-SHA256 of APP_KEY under a name of its own. */
export function evidenceSealKey(appKey: string): KeyObject {
  return createSecretKey(
    Buffer.from(
      hkdfSync('sha256', appKey, Buffer.alloc(0), 'merchant-portal:exchange-evidence:seal:v1', 32)
    )
  )
}

export interface EvidenceCipher {
  seal: Seal
  /**
   * The sealed value; undefined when it does not open under `purpose`, or null for a
   * text-format seal without the encrypter's key (the encrypter itself must open it).
   */
  open(sealed: Sealed, purpose: string): unknown
}

/** Random IVs drawn 4 KiB at a time (one call per 341 seals); no byte is used twice. */
let ivPool = Buffer.alloc(0)
let ivAt = 0
function nextIv() {
  if (ivAt + IV_BYTES > ivPool.length) {
    ivPool = randomBytes(4092)
    ivAt = 0
  }
  ivAt += IV_BYTES
  return ivPool.subarray(ivAt - IV_BYTES, ivAt)
}

/** The plaintext's bytes, with the tokens of seal_tokens.ts when it has some. */
function encoded(plain: string): { encoding: number; bytes: Buffer } {
  const tokenized = withTokens(plain)
  return tokenized !== null && tokenized.length < plain.length
    ? { encoding: TOKENS_1, bytes: Buffer.from(tokenized) }
    : { encoding: RAW, bytes: Buffer.from(plain) }
}

function decoded(encoding: number, bytes: Buffer): string | undefined {
  if (encoding === RAW) return bytes.toString('utf8')
  if (encoding === TOKENS_1) return withoutTokens(bytes.toString('utf8'))
  return undefined
}

/** The additional data: the header (so the encoding cannot be changed) and the purpose. */
const additionalData = (header: Uint8Array, purpose: string) =>
  Buffer.concat([header, Buffer.from(purpose)])

export function evidenceCipher(keys: EvidenceKeys): EvidenceCipher {
  /** A seal in the encrypter's text format (rows written before migration 1100). */
  function openText(sealed: string, purpose: string): unknown {
    return keys.textFormat === null ? null : openTextFormat(keys.textFormat, sealed, purpose)
  }

  function openCompact(sealed: Buffer, purpose: string): unknown {
    if (sealed.length < COMPACT_SEAL_OVERHEAD) return undefined
    const header = sealed.subarray(0, HEADER_BYTES)
    const iv = sealed.subarray(HEADER_BYTES, HEADER_BYTES + IV_BYTES)
    const tag = sealed.subarray(HEADER_BYTES + IV_BYTES, COMPACT_SEAL_OVERHEAD)
    const decipher = createDecipheriv('aes-256-gcm', keys.seal, iv, {
      authTagLength: TAG_BYTES,
    })
    decipher.setAAD(additionalData(header, purpose))
    decipher.setAuthTag(tag)
    const bytes = Buffer.concat([
      decipher.update(sealed.subarray(COMPACT_SEAL_OVERHEAD)),
      decipher.final(),
    ])
    const plain = decoded(header[1] & ~JSON_VALUE, bytes)
    if (plain === undefined) return undefined
    return header[1] & JSON_VALUE ? JSON.parse(plain) : plain
  }

  return {
    seal(value, purpose) {
      const text = typeof value === 'string'
      const { encoding, bytes } = encoded(text ? value : JSON.stringify(value))
      const header = Buffer.from([COMPACT_SEAL_MARKER, text ? encoding : encoding | JSON_VALUE])
      const iv = nextIv()
      const cipher = createCipheriv('aes-256-gcm', keys.seal, iv, { authTagLength: TAG_BYTES })
      cipher.setAAD(additionalData(header, purpose))
      const body = Buffer.concat([cipher.update(bytes), cipher.final()])
      return Buffer.concat([header, iv, cipher.getAuthTag(), body])
    },
    open(sealed, purpose) {
      try {
        if (typeof sealed === 'string') return openText(sealed, purpose)
        const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength)
        return bytes[0] === COMPACT_SEAL_MARKER
          ? openCompact(bytes, purpose)
          : openText(bytes.toString('utf8'), purpose)
      } catch {
        return undefined
      }
    },
  }
}

/** The evidence columns written for one event: its sealed snapshot and projection. */
export interface SealedEvidence {
  snapshotCiphertext: Buffer | null
  snapshotSize: number | null
  projectionCiphertext: Buffer | null
  projectionVersion: number | null
}

/** A snapshot's plaintext as stored: its tag and its text. */
export const snapshotPlaintext = (snapshot: OpenedSnapshot) =>
  (snapshot.kind === 'json' ? 'j' : 't') + snapshot.text

/**
 * Seals an event's snapshot and, when a read may show it, its projection. `facts`
 * are the event's columns; their `hasSnapshot` and `snapshotSize` are taken from the
 * sealing here. `snapshotSize` is the stored ciphertext's byte length, so an oversize
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
  const size = ciphertext === null ? null : ciphertext.length
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
