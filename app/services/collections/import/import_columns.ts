/*
| The COPY column lists of the import's writes (import_batch_writer.ts, staging_sql.ts)
| and of the bench datasets; prepareLine and the row forms of import_preparation.ts
| build the rows in these orders. A transaction's columns are those of
| transactions/transaction_rows.ts.
*/
import {
  TRANSACTION_KEY_COLUMNS,
  TRANSACTION_VALUE_COLUMNS,
} from '#services/collections/transactions/transaction_rows'
import { BODY_COLUMNS } from '#services/collections/history/evidence_layout'

/** A transaction's staging row (PreparedLine.transaction), in this order. */
export const TRANSACTION_COLUMNS = [
  'line',
  ...TRANSACTION_KEY_COLUMNS,
  ...TRANSACTION_VALUE_COLUMNS,
]
/**
 * An event's values common to staging and to a direct COPY, in this order: its
 * record's, with its body's (EVENT_BODY_COLUMNS, evidence_storage.ts) among them.
 */
export const EVENT_CORE_COLUMNS = [
  'id',
  'merchant_id',
  'environment',
  'kind',
  'source',
  'direction',
  'captured_at',
  'capture_format',
  'schema_version',
  'snapshot_ciphertext',
  'snapshot_size',
  'projection_ciphertext',
  'projection_version',
  'content_type',
  'body_capture_status',
  'event_id',
  'attempt_number',
  'http_status',
  'delivery_state',
  'duration_ms',
  'is_repeated_request',
  'legal_hold',
  'purged_at',
]
/** A direct COPY into transactions: the staging columns with the id for the line. */
export const DIRECT_TRANSACTION_COLUMNS = ['id', ...TRANSACTION_COLUMNS.slice(1)]
/** An event's body values, in this order, consecutive in the core. */
export const EVENT_BODY_COLUMNS = BODY_COLUMNS
/** An event's record values: the core but its body. */
export const EVENT_RECORD_COLUMNS = EVENT_CORE_COLUMNS.filter(
  (column) => !EVENT_BODY_COLUMNS.includes(column)
)
/** Staging row: where it came from, its transaction's reference, the given retain_until. */
export const STAGE_EVENT_COLUMNS = [
  'line',
  'position',
  'merchant_transaction_id',
  'retain_until',
  ...EVENT_CORE_COLUMNS,
]
/** Direct row into evidence_records: the record's core, then what only the database knew. */
export const DIRECT_EVENT_COLUMNS = [
  ...EVENT_RECORD_COLUMNS,
  'retain_until',
  'created_at',
  'transaction_id',
  'body_month',
]
/** Direct row into evidence_bodies. */
export const DIRECT_BODY_COLUMNS = ['id', 'body_month', ...EVENT_BODY_COLUMNS]
