/*
| `exchange_evidence`, the view of an event as one row over the tables of
| evidence_storage.ts, for whoever reads or writes evidence that way (operators,
| maintenance commands, the tests): INSTEAD OF triggers write the record and its body.
| A body column reads as a subquery, not a join, so `SELECT ... FOR UPDATE` on the view
| locks the event's record. Its body columns are those `evidence_bodies` has at the
| time (the seal conversion adds and renames some: stored_seal_format.ts), so it is
| defined again whenever they change.
|
| The SQL functions here are the one place for a body's month: its retention month
| (evidence_retain_month, the record's body_month), its partition
| (evidence_body_partition, created when missing, never for a month purged whole:
| purged_partitions.ts drops those), the month lock's key, where the
| body of a month lies (evidence_body_place: loose once the month is purged), and
| the month a body is written under (evidence_body_month, with the month's lock).
| Running databases have them from migrations: a change here needs a migration that
| writes the new SQL out (as 1130 does; schema_from_modules.spec.ts checks).
*/
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type db from '@adonisjs/lucid/services/db'
import {
  BODIES,
  PARTITION_SCHEMA,
  PURGED_MONTHS,
  RECORDS,
} from '#services/collections/history/evidence_layout'
import { MONTH_LOCK_CLASS } from '#services/collections/history/evidence_layout'

type Client = TransactionClientContract | typeof db

/** Serialises the creation of partitions. */
const PARTITION_LOCK = 1111

/** The record's columns as exchange_evidence showed them, before its body's. */
export const RECORD_COLUMNS = [
  'id',
  'merchant_id',
  'transaction_id',
  'environment',
  'kind',
  'source',
  'direction',
  'captured_at',
  'capture_format',
  'schema_version',
  'content_type',
  'body_capture_status',
  'event_id',
  'attempt_number',
  'http_status',
  'delivery_state',
  'duration_ms',
  'is_repeated_request',
  'retain_until',
  'legal_hold',
  'purged_at',
  'created_at',
]

export const MONTH_FUNCTIONS = `
CREATE OR REPLACE FUNCTION evidence_retain_month(retain timestamptz) RETURNS date AS $$
  SELECT CASE WHEN retain < '0001-01-01 00:00:00+00' OR retain >= '10000-01-01 00:00:00+00'
    THEN 'infinity'::date ELSE date_trunc('month', retain AT TIME ZONE 'UTC')::date END
$$ LANGUAGE sql IMMUTABLE;
CREATE OR REPLACE FUNCTION evidence_month_key(month date) RETURNS int AS $$
  SELECT (extract(year FROM month) * 12 + extract(month FROM month) - 1)::int
$$ LANGUAGE sql IMMUTABLE;
CREATE OR REPLACE FUNCTION evidence_body_partition(month date) RETURNS void AS $$
DECLARE
  name text := 'bodies_' || to_char(month, 'YYYY_MM');
BEGIN
  IF month = 'infinity' OR to_regclass('${PARTITION_SCHEMA}.' || name) IS NOT NULL
    OR EXISTS (SELECT 1 FROM ${PURGED_MONTHS} p WHERE p.month = $1) THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(${PARTITION_LOCK});
  -- Not to_regclass again: it reads this backend's cached catalog, which may not show
  -- the partition a concurrent call created while this one waited for the lock.
  EXECUTE format('CREATE TABLE IF NOT EXISTS ${PARTITION_SCHEMA}.%I PARTITION OF ${BODIES} FOR VALUES FROM (%L) TO (%L)',
    name, month, (month + interval '1 month')::date);
END $$ LANGUAGE plpgsql;
CREATE OR REPLACE FUNCTION evidence_body_place(month date) RETURNS date AS $$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ${PURGED_MONTHS} p WHERE p.month = $1)
    THEN 'infinity'::date ELSE $1 END
$$ LANGUAGE sql STABLE;
CREATE OR REPLACE FUNCTION evidence_body_month(retain timestamptz) RETURNS date AS $$
DECLARE
  month date := evidence_retain_month(retain);
BEGIN
  IF month = 'infinity' THEN RETURN month; END IF;
  PERFORM evidence_body_partition(month);
  PERFORM pg_advisory_xact_lock_shared(${MONTH_LOCK_CLASS}, evidence_month_key(month));
  RETURN evidence_body_place(month);
END $$ LANGUAGE plpgsql;`

/** The body columns `evidence_bodies` has now, in order. */
async function bodyColumns(client: Client): Promise<string[]> {
  const result = await client.rawQuery(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ?
        AND column_name NOT IN ('id', 'body_month')
      ORDER BY ordinal_position`,
    [BODIES]
  )
  return result.rows.map((row: { column_name: string }) => row.column_name)
}

const list = (columns: string[], format: (column: string) => string) =>
  columns.map(format).join(', ')

/** (Re)defines the view and its triggers over the tables as they are now. */
export async function defineEvidenceView(client: Client) {
  const body = await bodyColumns(client)
  const bodyOf = (column: string) =>
    `(SELECT b.${column} FROM ${BODIES} b
      WHERE b.id = r.id AND b.body_month = evidence_body_place(r.body_month)) AS ${column}`
  const recordOf = (column: string) =>
    column === 'purged_at'
      ? `COALESCE(r.purged_at, CASE WHEN NOT EXISTS (SELECT 1 FROM ${BODIES} b
           WHERE b.id = r.id AND b.body_month = 'infinity')
         THEN (SELECT m.purged_at FROM ${PURGED_MONTHS} m WHERE m.month = r.body_month) END)
         AS purged_at`
      : `r.${column}`
  // An unpurged event always has a body (its absence says it went with its month).
  const needsBody = [
    'NEW.purged_at IS NULL',
    ...body.map((column) => `NEW.${column} IS NOT NULL`),
  ].join(' OR ')
  await client.rawQuery(`
DROP VIEW IF EXISTS exchange_evidence;
CREATE VIEW exchange_evidence AS
  SELECT ${list(RECORD_COLUMNS, recordOf)}, ${list(body, bodyOf)}
  FROM ${RECORDS} r;
ALTER VIEW exchange_evidence ALTER COLUMN legal_hold SET DEFAULT false;

CREATE OR REPLACE FUNCTION exchange_evidence_insert() RETURNS trigger AS $$
DECLARE
  place date := evidence_body_month(NEW.retain_until);
BEGIN
  INSERT INTO ${RECORDS} (${RECORD_COLUMNS.join(', ')}, body_month)
  VALUES (${list(RECORD_COLUMNS, (column) => `NEW.${column}`)},
    evidence_retain_month(NEW.retain_until));
  IF ${needsBody} THEN
    INSERT INTO ${BODIES} (id, body_month, ${body.join(', ')})
    VALUES (NEW.id, place, ${list(body, (column) => `NEW.${column}`)});
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION exchange_evidence_update() RETURNS trigger AS $$
DECLARE
  stored date;
  month date := evidence_retain_month(NEW.retain_until);
  place date;
  moved date;
BEGIN
  SELECT body_month INTO stored FROM ${RECORDS} WHERE id = OLD.id;
  place := evidence_body_place(stored);
  moved := CASE WHEN month = stored THEN place ELSE evidence_body_month(NEW.retain_until) END;
  UPDATE ${RECORDS} SET ${list(RECORD_COLUMNS, (column) => `${column} = NEW.${column}`)},
    body_month = month
  WHERE id = OLD.id;
  UPDATE ${BODIES} SET id = NEW.id, body_month = moved,
    ${list(body, (column) => `${column} = NEW.${column}`)}
  WHERE id = OLD.id AND body_month = place;
  IF NOT FOUND AND (${needsBody}) THEN
    INSERT INTO ${BODIES} (id, body_month, ${body.join(', ')})
    VALUES (NEW.id, moved, ${list(body, (column) => `NEW.${column}`)});
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION exchange_evidence_delete() RETURNS trigger AS $$
BEGIN
  DELETE FROM ${RECORDS} WHERE id = OLD.id;
  RETURN OLD;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER exchange_evidence_insert INSTEAD OF INSERT ON exchange_evidence
  FOR EACH ROW EXECUTE FUNCTION exchange_evidence_insert();
CREATE TRIGGER exchange_evidence_update INSTEAD OF UPDATE ON exchange_evidence
  FOR EACH ROW EXECUTE FUNCTION exchange_evidence_update();
CREATE TRIGGER exchange_evidence_delete INSTEAD OF DELETE ON exchange_evidence
  FOR EACH ROW EXECUTE FUNCTION exchange_evidence_delete();`)
}

/** Whether `exchange_evidence` is the view (migration 1110 done) rather than the table. */
export async function evidenceIsSplit(client: Client): Promise<boolean> {
  const result = await client.rawQuery(
    `SELECT relkind FROM pg_class WHERE oid = to_regclass('exchange_evidence')`
  )
  return result.rows[0]?.relkind === 'v'
}
