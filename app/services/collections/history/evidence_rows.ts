/*
| How a transaction's history rows are read (portal-api.md › History item): the
| selected columns of a record and its body (EVIDENCE_FROM of evidence_storage.ts;
| timestamps formatted by PostgreSQL to the microsecond in UTC; a purged row's stored
| projection not even selected), the row
| they give, and the item a row shows. The statements that read them, with their
| scope and order, are in transaction_history.ts.
*/
import type { Environment } from '#models/collections_vocabulary'
import { openProjection } from '#services/collections/history/evidence_snapshot'
import type { EvidenceKind } from '#services/collections/history/evidence_kinds'
import { isoUtc } from '#services/collections/transactions/transaction_rows'
import { historyItemOf } from '#services/collections/history/project_evidence'
import { snapshotReadable } from '#services/collections/history/snapshot_readability'
import type { EvidenceRecord } from '#services/collections/history/projection'
import type { HistoryItem } from '#shapes/collections'
import { PURGED_AT } from '#services/collections/history/evidence_layout'

export const EVIDENCE_COLUMNS = `e.id, e.transaction_id, e.environment, e.kind,
  ${isoUtc('e.captured_at')} AS captured_at, e.capture_format, e.schema_version,
  b.snapshot_ciphertext IS NOT NULL AS has_snapshot, b.snapshot_size,
  CASE WHEN ${PURGED_AT} IS NULL THEN b.projection_ciphertext END AS projection_ciphertext,
  e.content_type, e.body_capture_status, e.event_id, e.attempt_number, e.http_status,
  e.delivery_state, e.duration_ms, e.is_repeated_request,
  ${isoUtc('e.retain_until')} AS retain_until, ${isoUtc(PURGED_AT)} AS purged_at`

export interface EvidenceRow {
  id: string
  transaction_id: number | string
  environment: Environment
  kind: EvidenceKind
  captured_at: string
  capture_format: string
  schema_version: number | null
  has_snapshot: boolean
  snapshot_size: number | null
  projection_ciphertext: Buffer | null
  content_type: string | null
  body_capture_status: string | null
  event_id: string | null
  attempt_number: number | null
  http_status: number | null
  delivery_state: string | null
  duration_ms: number | null
  is_repeated_request: boolean | null
  retain_until: string
  purged_at: string | null
}

/** The history item of a row: its stored projection is opened only when it is shown. */
export function itemOf(row: EvidenceRow): HistoryItem {
  const record: EvidenceRecord = {
    id: row.id,
    transactionId: Number(row.transaction_id),
    environment: row.environment,
    kind: row.kind,
    capturedAt: row.captured_at,
    captureFormat: row.capture_format,
    schemaVersion: row.schema_version,
    hasSnapshot: row.has_snapshot,
    snapshotSize: row.snapshot_size,
    contentType: row.content_type,
    bodyCaptureStatus: row.body_capture_status,
    eventId: row.event_id,
    attemptNumber: row.attempt_number,
    httpStatus: row.http_status,
    deliveryState: row.delivery_state,
    durationMs: row.duration_ms,
    isRepeatedRequest: row.is_repeated_request,
    retainUntil: row.retain_until,
    purgedAt: row.purged_at,
  }
  if (!snapshotReadable(record) || row.projection_ciphertext === null) {
    return historyItemOf(record, 'missing')
  }
  // Whatever is wrong with one stored projection stays with its item.
  return historyItemOf(record, openProjection(row.id, row.projection_ciphertext) ?? 'unreadable')
}
