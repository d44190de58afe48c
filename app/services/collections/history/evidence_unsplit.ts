/*
| Migration 1110's down: the table `exchange_evidence` as it was before the split
| (migrations 0501 to 1100), built back from the view in one transaction, with its
| constraints and indexes; the split's tables, partitions and functions dropped.
*/
import db from '@adonisjs/lucid/services/db'
import { forgetBodyPartitions } from '#services/collections/history/evidence_storage'
import {
  BODIES,
  PARTITION_SCHEMA,
  PURGED_MONTHS,
  RECORDS,
} from '#services/collections/history/evidence_layout'
import { evidenceIsSplit } from '#services/collections/history/evidence_view'
import { AVAILABLE_KINDS_AT_SPLIT } from '#services/collections/history/evidence_split'

/** The table's columns in their order after migration 1100. */
const TABLE_COLUMNS = `id, merchant_id, transaction_id, environment, kind, source, direction,
  captured_at, capture_format, schema_version, snapshot_size, content_type, body_capture_status,
  event_id, attempt_number, http_status, delivery_state, duration_ms, is_repeated_request,
  retain_until, legal_hold, purged_at, created_at, projection_version, snapshot_ciphertext,
  projection_ciphertext`

const NOT_NULL = [
  'merchant_id',
  'transaction_id',
  'environment',
  'kind',
  'source',
  'direction',
  'captured_at',
  'capture_format',
  'retain_until',
  'legal_hold',
  'created_at',
]

export async function restoreEvidenceTable() {
  if (!(await evidenceIsSplit(db))) return
  await db.transaction(async (trx) => {
    await trx.rawQuery(`LOCK TABLE ${RECORDS}, ${BODIES} IN ACCESS EXCLUSIVE MODE`)
    await trx.rawQuery(`
CREATE TABLE exchange_evidence_restored AS SELECT ${TABLE_COLUMNS} FROM exchange_evidence;
DROP VIEW exchange_evidence;
DROP FUNCTION exchange_evidence_insert(), exchange_evidence_update(), exchange_evidence_delete();
DROP TABLE ${RECORDS}, ${BODIES}, ${PURGED_MONTHS};
DROP SCHEMA ${PARTITION_SCHEMA} CASCADE;
DROP FUNCTION evidence_records_deleted(), evidence_body_month(timestamptz), evidence_body_place(date),
  evidence_body_partition(date), evidence_month_key(date), evidence_retain_month(timestamptz);
ALTER TABLE exchange_evidence_restored RENAME TO exchange_evidence;
ALTER TABLE exchange_evidence ADD CONSTRAINT exchange_evidence_pkey PRIMARY KEY (id),
  ${NOT_NULL.map((column) => `ALTER COLUMN ${column} SET NOT NULL`).join(', ')},
  ALTER COLUMN legal_hold SET DEFAULT false,
  ADD CONSTRAINT exchange_evidence_merchant_id_foreign FOREIGN KEY (merchant_id)
    REFERENCES merchants(id) ON DELETE CASCADE,
  ADD CONSTRAINT exchange_evidence_transaction_id_foreign FOREIGN KEY (transaction_id)
    REFERENCES transactions(id) ON DELETE CASCADE;
CREATE INDEX exchange_evidence_history_idx ON exchange_evidence (transaction_id, captured_at, id);
CREATE INDEX exchange_evidence_purge_idx ON exchange_evidence (retain_until)
  WHERE purged_at IS NULL AND NOT legal_hold;
CREATE INDEX exchange_evidence_available_idx ON exchange_evidence (transaction_id, merchant_id, environment)
  WHERE purged_at IS NULL AND kind IN (${AVAILABLE_KINDS_AT_SPLIT});
CREATE INDEX exchange_evidence_legal_hold_idx ON exchange_evidence (retain_until)
  WHERE purged_at IS NULL AND legal_hold;`)
  })
  forgetBodyPartitions()
}
