/*
| Migration 1110: the table `exchange_evidence` split in place into records and bodies
| partitioned by month (evidence_storage.ts), then replaced by the view of them
| (evidence_view.ts). Beside the running service, which writes the table until the
| swap: rows are copied in id order in committed batches (the cursor is kept in
| `evidence_split_progress`), a trigger queues every row written meanwhile
| (`evidence_split_queue`), whose copies are made again. An interrupted run keeps its
| progress; running it again resumes. The swap, one transaction under a lock that
| holds the table's readers and writers back, copies what is left, drops the table
| and defines the view. restoreEvidenceTable (down) builds the table back from the view.
*/
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { forgetBodyPartitions } from '#services/collections/history/evidence_storage'
import {
  BODIES,
  PARTITION_SCHEMA,
  PURGED_MONTHS,
  RECORDS,
} from '#services/collections/history/evidence_layout'
import {
  MONTH_FUNCTIONS,
  RECORD_COLUMNS,
  defineEvidenceView,
  evidenceIsSplit,
} from '#services/collections/history/evidence_view'
import { BODY_COLUMNS, EVENT_IDS } from '#services/collections/history/evidence_layout'

export const SPLIT_BATCH_ROWS = 5_000

/**
 * The permitted kinds of the available-evidence index, written out as the split first
 * built it (and as migration 0502 had them): a migration's schema does not follow
 * later modules (docs/operations.md › Migrations replay what they first ran).
 */
export const AVAILABLE_KINDS_AT_SPLIT = `'merchant_request.validated',
    'merchant_response.synchronous', 'merchant_notification.queued',
    'merchant_notification.response', 'merchant_notification.delivery_attempt'`

export interface SplitOptions {
  batchRows?: number
  /** Aborted: stop before the next batch; running it again resumes. */
  signal?: AbortSignal
  /** After each committed batch: the rows this run has copied so far. */
  onProgress?: (copied: number) => void
}

type Client = TransactionClientContract | typeof db

const BODY_TYPE = async (client: Client) => {
  const result = await client.rawQuery(
    `SELECT data_type FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'exchange_evidence'
        AND column_name = 'snapshot_ciphertext'`
  )
  return result.rows[0].data_type as string
}

/** The tables, their indexes and functions (idempotent: a resumed run finds them). */
async function createTables(sealType: string) {
  await db.rawQuery(`
CREATE SCHEMA IF NOT EXISTS ${PARTITION_SCHEMA};
CREATE TABLE IF NOT EXISTS ${RECORDS} (
  id char(26) PRIMARY KEY,
  merchant_id bigint NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
  transaction_id bigint NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  environment varchar(4) NOT NULL,
  kind varchar(64) NOT NULL,
  source varchar(32) NOT NULL,
  direction varchar(16) NOT NULL,
  captured_at timestamptz NOT NULL,
  capture_format varchar(64) NOT NULL,
  schema_version integer,
  content_type varchar(255),
  body_capture_status varchar(64),
  event_id varchar(128),
  attempt_number integer,
  http_status integer,
  delivery_state varchar(16),
  duration_ms integer,
  is_repeated_request boolean,
  retain_until timestamptz NOT NULL,
  legal_hold boolean NOT NULL DEFAULT false,
  purged_at timestamptz,
  created_at timestamptz NOT NULL,
  body_month date NOT NULL
);
CREATE INDEX IF NOT EXISTS evidence_records_history_idx ON ${RECORDS} (transaction_id, captured_at, id);
CREATE INDEX IF NOT EXISTS evidence_records_available_idx
  ON ${RECORDS} (transaction_id, merchant_id, environment, body_month) INCLUDE (id)
  WHERE purged_at IS NULL AND kind IN (${AVAILABLE_KINDS_AT_SPLIT});
CREATE INDEX IF NOT EXISTS evidence_records_purge_idx ON ${RECORDS} (body_month, retain_until)
  WHERE purged_at IS NULL AND NOT legal_hold;
CREATE INDEX IF NOT EXISTS evidence_records_legal_hold_idx ON ${RECORDS} (retain_until)
  WHERE purged_at IS NULL AND legal_hold;
CREATE TABLE IF NOT EXISTS ${BODIES} (
  id char(26) NOT NULL,
  body_month date NOT NULL,
  snapshot_ciphertext ${sealType},
  snapshot_size integer,
  projection_ciphertext ${sealType},
  projection_version smallint,
  PRIMARY KEY (id, body_month)
) PARTITION BY RANGE (body_month);
CREATE TABLE IF NOT EXISTS ${PARTITION_SCHEMA}.bodies_loose PARTITION OF ${BODIES}
  FOR VALUES FROM ('infinity') TO (MAXVALUE);
CREATE TABLE IF NOT EXISTS ${PURGED_MONTHS} (
  month date PRIMARY KEY,
  purged_at timestamptz NOT NULL,
  events bigint NOT NULL
);
${MONTH_FUNCTIONS}
-- A record deleted (its transaction's or merchant's cascade included) takes its body.
CREATE OR REPLACE FUNCTION evidence_records_deleted() RETURNS trigger AS $$
BEGIN
  DELETE FROM ${BODIES} b USING gone g WHERE b.id = g.id AND b.body_month = g.body_month;
  RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE OR REPLACE TRIGGER evidence_records_deleted AFTER DELETE ON ${RECORDS}
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION evidence_records_deleted();`)
}

/** Split state: the copy cursor, and the rows written meanwhile queued for another copy. */
const TRACK_CHANGES = `
CREATE TABLE IF NOT EXISTS evidence_split_progress (copied_through text NOT NULL);
INSERT INTO evidence_split_progress SELECT '' WHERE NOT EXISTS (SELECT 1 FROM evidence_split_progress);
CREATE TABLE IF NOT EXISTS evidence_split_queue (id char(26) PRIMARY KEY);
CREATE OR REPLACE FUNCTION evidence_split_queue() RETURNS trigger AS $$
BEGIN
  INSERT INTO evidence_split_queue VALUES (COALESCE(NEW.id, OLD.id)) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE OR REPLACE TRIGGER evidence_split_queue AFTER INSERT OR UPDATE OR DELETE ON exchange_evidence
  FOR EACH ROW EXECUTE FUNCTION evidence_split_queue();`

/** Copies the rows of `source` (a relation with exchange_evidence's columns) not yet copied. */
const COPY_ROWS = (source: string) => `
, records AS (
  INSERT INTO ${RECORDS} (${RECORD_COLUMNS.join(', ')}, body_month)
  SELECT ${RECORD_COLUMNS.join(', ')}, evidence_retain_month(retain_until) FROM ${source}
  ON CONFLICT (id) DO NOTHING
), bodies AS (
  INSERT INTO ${BODIES} (id, body_month, ${BODY_COLUMNS.join(', ')})
  SELECT id, evidence_retain_month(retain_until), ${BODY_COLUMNS.join(', ')} FROM ${source}
  WHERE purged_at IS NULL OR ${BODY_COLUMNS.map((column) => `${column} IS NOT NULL`).join(' OR ')}
  ON CONFLICT DO NOTHING
)`

/** Creates the partitions the rows of `source` need. */
const ENSURE_PARTITIONS = (source: string) =>
  `SELECT evidence_body_partition(m) FROM (SELECT DISTINCT evidence_retain_month(retain_until) AS m
     FROM ${source} source) months ORDER BY m`

/** The next batch after the cursor; returns how many rows it copied. */
async function copyNext(trx: TransactionClientContract, batchRows: number): Promise<number> {
  const progress = await trx.rawQuery(
    'SELECT copied_through FROM evidence_split_progress FOR UPDATE'
  )
  const after = [progress.rows[0].copied_through, batchRows]
  const next = '(SELECT * FROM exchange_evidence WHERE id > ? ORDER BY id LIMIT ?)'
  await trx.rawQuery(ENSURE_PARTITIONS(next), after)
  const result = await trx.rawQuery(
    `WITH batch AS MATERIALIZED ${next} ${COPY_ROWS('batch')}
     UPDATE evidence_split_progress SET copied_through = (SELECT max(id) FROM batch)
     WHERE EXISTS (SELECT 1 FROM batch) RETURNING (SELECT count(*)::int FROM batch) AS rows`,
    after
  )
  return result.rows[0]?.rows ?? 0
}

/** Copies again the queued rows written meanwhile; returns how many it took. */
async function copyQueued(trx: TransactionClientContract, batchRows: number): Promise<number> {
  const taken = await trx.rawQuery(
    `DELETE FROM evidence_split_queue WHERE id IN (
       SELECT id FROM evidence_split_queue LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING id`,
    [batchRows]
  )
  if (taken.rows.length === 0) return 0
  const ids = [`{${taken.rows.map((row: { id: string }) => row.id).join(',')}}`]
  await trx.rawQuery(`DELETE FROM ${RECORDS} WHERE id = ANY(?::${EVENT_IDS})`, ids)
  const source = `(SELECT * FROM exchange_evidence WHERE id = ANY(?::${EVENT_IDS}))`
  await trx.rawQuery(ENSURE_PARTITIONS(source), ids)
  await trx.rawQuery(`WITH batch AS MATERIALIZED ${source} ${COPY_ROWS('batch')} SELECT 1`, ids)
  return taken.rows.length
}

/** Splits exchange_evidence (see the top of this file); done is false when stopped first. */
export async function splitEvidence(options: SplitOptions = {}) {
  const result = { copied: 0, done: false }
  if (await evidenceIsSplit(db)) return { ...result, done: true }
  const batchRows = options.batchRows ?? SPLIT_BATCH_ROWS
  await createTables(await BODY_TYPE(db))
  await db.rawQuery(TRACK_CHANGES)
  for (const step of [copyNext, copyQueued]) {
    for (;;) {
      if (options.signal?.aborted) return result
      const rows = await db.transaction((trx) => step(trx, batchRows))
      if (rows === 0) break
      result.copied += rows
      options.onProgress?.(result.copied)
    }
  }
  await db.transaction(async (trx) => {
    await trx.rawQuery('LOCK TABLE exchange_evidence IN ACCESS EXCLUSIVE MODE')
    for (const step of [copyNext, copyQueued]) {
      for (let rows = 1; rows > 0; result.copied += rows) rows = await step(trx, batchRows)
    }
    await trx.rawQuery(`DROP TABLE exchange_evidence;
      DROP TABLE evidence_split_progress, evidence_split_queue;
      DROP FUNCTION evidence_split_queue()`)
    await defineEvidenceView(trx)
  })
  await db.rawQuery(`ANALYZE ${RECORDS}; ANALYZE ${BODIES}`)
  forgetBodyPartitions()
  return { ...result, done: true }
}
