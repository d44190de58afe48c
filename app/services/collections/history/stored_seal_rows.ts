/*
| One row's stored seals in either format (stored_seal_format.ts converts them in
| batches): the compact bytes of evidence_cipher.ts, or the application encrypter's
| text. Seals that do not open, and snapshots over the read bound, are kept as they are.
*/
import encryption from '@adonisjs/core/services/encryption'
import {
  openProjection,
  openSnapshot,
  sealProjection,
  sealSnapshot,
} from '#services/collections/history/evidence_snapshot'
import { READ_BOUND_BYTES } from '#services/collections/history/projection'
import {
  COMPACT_SEAL_MARKER,
  projectionPurpose,
  snapshotPlaintext,
  snapshotPurpose,
} from '#services/collections/history/evidence_cipher'

export interface StoredRow {
  id: string
  snapshot_ciphertext: string | Buffer | null
  snapshot_size: number | null
  projection_ciphertext: string | Buffer | null
}

export interface ConvertedRow {
  id: string
  snapshot: Buffer | string | null
  size: number | null
  projection: Buffer | string | null
}

/** One row's seals in the compact format. */
export function toBytes(row: StoredRow): ConvertedRow {
  const snapshotText = row.snapshot_ciphertext as string | null
  const projectionText = row.projection_ciphertext as string | null
  let snapshot: Buffer | null = snapshotText === null ? null : Buffer.from(snapshotText)
  let size = row.snapshot_size
  const opened = snapshotText === null ? null : openSnapshot(row.id, snapshotText)
  if (opened && (size === null || size <= READ_BOUND_BYTES)) {
    const sealed = sealSnapshot(row.id, opened)
    snapshot = sealed.ciphertext
    size = sealed.size
  }
  const projection = projectionText === null ? null : openProjection(row.id, projectionText)
  return {
    id: row.id,
    snapshot,
    size,
    projection: projection
      ? sealProjection(row.id, projection)
      : projectionText === null
        ? null
        : Buffer.from(projectionText),
  }
}

/** Stored bytes as text: a text-format seal as it was; other bytes (unreadable) in base64. */
const asText = (bytes: Buffer) =>
  bytes[0] === COMPACT_SEAL_MARKER ? bytes.toString('base64') : bytes.toString('utf8')

/** One row's seals in the encrypter's text format. */
export function toText(row: StoredRow): ConvertedRow {
  const snapshotBytes = row.snapshot_ciphertext as Buffer | null
  const projectionBytes = row.projection_ciphertext as Buffer | null
  let snapshot: string | null = snapshotBytes === null ? null : asText(snapshotBytes)
  let size = row.snapshot_size
  const opened = snapshotBytes === null ? null : openSnapshot(row.id, snapshotBytes)
  if (opened && snapshotBytes![0] === COMPACT_SEAL_MARKER) {
    snapshot = encryption.encrypt(snapshotPlaintext(opened), undefined, snapshotPurpose(row.id))
    size = Buffer.byteLength(snapshot)
  }
  const projection = projectionBytes === null ? null : openProjection(row.id, projectionBytes)
  return {
    id: row.id,
    snapshot,
    size,
    projection:
      projection && projectionBytes![0] === COMPACT_SEAL_MARKER
        ? encryption.encrypt(projection, undefined, projectionPurpose(row.id))
        : projectionBytes === null
          ? null
          : asText(projectionBytes),
  }
}
