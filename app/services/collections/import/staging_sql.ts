/*
| The import's staging (import_batch_writer.ts): two session temporary tables for what
| may already be stored, and the SQL that merges them into the final tables under the
| re-import rules. The column lists are those of import_columns.ts.
*/
import {
  TRANSACTION_KEY_COLUMNS,
  TRANSACTION_VALUE_COLUMNS,
} from '#services/collections/transactions/transaction_rows'
import {
  DIRECT_BODY_COLUMNS,
  DIRECT_EVENT_COLUMNS,
  EVENT_BODY_COLUMNS,
  EVENT_RECORD_COLUMNS,
} from '#services/collections/import/import_columns'
import { BODIES, RECORDS } from '#services/collections/history/evidence_layout'
import { LOOSE_MONTH } from '#services/collections/history/evidence_layout'

export const STAGE_TRANSACTIONS = 'collections_import_transactions'
export const STAGE_EVENTS = 'collections_import_events'

export const CREATE_STAGING = `
CREATE TEMP TABLE IF NOT EXISTS ${STAGE_TRANSACTIONS} (
  line integer NOT NULL,
  merchant_id bigint NOT NULL,
  environment varchar(4) NOT NULL,
  merchant_transaction_id varchar(100) NOT NULL,
  amount numeric(14, 2),
  currency char(3) NOT NULL,
  payment_status varchar(32),
  legacy_status varchar(32),
  payment_brand varchar(100) NOT NULL,
  is_archived boolean NOT NULL,
  is_credited boolean NOT NULL,
  created_at timestamptz,
  updated_at timestamptz
) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS ${STAGE_EVENTS} (
  line integer NOT NULL,
  position integer NOT NULL,
  id char(26) NOT NULL,
  merchant_id bigint NOT NULL,
  environment varchar(4) NOT NULL,
  merchant_transaction_id varchar(100) NOT NULL,
  kind varchar(64) NOT NULL,
  source varchar(32) NOT NULL,
  direction varchar(16) NOT NULL,
  captured_at timestamptz NOT NULL,
  capture_format varchar(64) NOT NULL,
  schema_version integer NOT NULL,
  snapshot_ciphertext bytea,
  snapshot_size integer,
  projection_ciphertext bytea,
  projection_version smallint,
  content_type varchar(255),
  body_capture_status varchar(64),
  event_id varchar(128),
  attempt_number integer,
  http_status integer,
  delivery_state varchar(16),
  duration_ms integer,
  is_repeated_request boolean,
  retain_until timestamptz,
  legal_hold boolean NOT NULL,
  purged_at timestamptz
) ON COMMIT DELETE ROWS;`

const KEY = TRANSACTION_KEY_COLUMNS.join(', ')
const STORED = [...TRANSACTION_KEY_COLUMNS, ...TRANSACTION_VALUE_COLUMNS].join(', ')
const listed = (format: (column: string) => string) =>
  TRANSACTION_VALUE_COLUMNS.map(format).join(', ')

/**
 * Upsert of the batch's transactions. Duplicates inside one batch keep the line a
 * sequential import would keep (newest updated_at, then the later line).
 */
export const MERGE_TRANSACTIONS = `
WITH source AS (
  SELECT DISTINCT ON (${KEY}) *
  FROM ${STAGE_TRANSACTIONS}
  ORDER BY ${KEY}, updated_at DESC NULLS LAST, line DESC
)
INSERT INTO transactions AS t (${STORED})
SELECT ${STORED}
FROM source
ON CONFLICT (${KEY}) DO UPDATE SET
  ${listed((column) => `${column} = EXCLUDED.${column}`)}
WHERE (t.updated_at IS NULL OR EXCLUDED.updated_at IS NULL OR EXCLUDED.updated_at >= t.updated_at)
  AND (${listed((column) => `t.${column}`)})
  IS DISTINCT FROM (${listed((column) => `EXCLUDED.${column}`)})
RETURNING id, ${KEY}, (xmax = 0) AS created, now()::text AS now`

/**
 * New evidence only; stored evidence is never changed by an import. A record takes the
 * columns of a direct COPY (DIRECT_EVENT_COLUMNS): the record's core, retain_until (the given
 * one, else the default of $1 months), created_at, transaction_id, and the month its
 * body is stored under: its retention month when that is one of the batch's writable
 * months ($2, locked by the batch and not purged), else loose (evidence_storage.ts).
 * The body of each record inserted goes with it; `inserted` counts the records.
 */
export const MERGE_EVENTS = `
WITH source AS (
  SELECT s.*, t.id AS transaction_id, evidence_retain_month(retain) AS retain_month, retain
  FROM ${STAGE_EVENTS} s
  JOIN transactions t ON t.merchant_id = s.merchant_id AND t.environment = s.environment
    AND t.merchant_transaction_id = s.merchant_transaction_id
  CROSS JOIN LATERAL (SELECT COALESCE(s.retain_until, LEAST(s.captured_at
    + make_interval(months => $1::int), '9999-12-31 23:59:59.999999+00'::timestamptz)) AS retain) r
), placed AS (
  SELECT source.*, CASE WHEN retain_month = ANY($2::date[]) THEN retain_month
    ELSE '${LOOSE_MONTH}'::date END AS place
  FROM source
), records AS (
  INSERT INTO ${RECORDS} (${DIRECT_EVENT_COLUMNS.join(', ')})
  SELECT ${EVENT_RECORD_COLUMNS.join(', ')}, retain, now(), transaction_id, retain_month
  FROM placed
  ORDER BY line, position
  ON CONFLICT (id) DO NOTHING
  RETURNING id
), bodies AS (
  INSERT INTO ${BODIES} (${DIRECT_BODY_COLUMNS.join(', ')})
  SELECT DISTINCT ON (p.id) p.id, p.place, ${EVENT_BODY_COLUMNS.map((column) => `p.${column}`).join(', ')}
  FROM placed p JOIN records USING (id)
  ORDER BY p.id, p.line, p.position
)
SELECT count(*)::int AS inserted FROM records`

/** The first line whose event id is already stored for another transaction. */
export const FOREIGN_EVENT_IDS = `
SELECT s.line, s.position, s.id
FROM ${STAGE_EVENTS} s
JOIN ${RECORDS} e ON e.id = s.id
JOIN transactions t ON t.id = e.transaction_id
WHERE (t.merchant_id, t.environment, t.merchant_transaction_id)
  IS DISTINCT FROM (s.merchant_id, s.environment, s.merchant_transaction_id)
ORDER BY s.line, s.position
LIMIT 1`
