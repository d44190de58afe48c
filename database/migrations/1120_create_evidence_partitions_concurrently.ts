import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * evidence_body_partition again: two sessions creating the same month's partition at
 * once (two `history:purge` runs from cron, an import beside a purge) no longer fail
 * with "relation already exists" in the one that waited. It also brought
 * evidence_body_place, which evidence_body_month now calls.
 *
 * The SQL as this migration first ran it, written out: a migration replays the same
 * statements on every database, whatever evidence_view.ts says later (migration 1130
 * changed the function again).
 */
const MONTH_FUNCTIONS_1120 = `
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
  IF month = 'infinity' OR to_regclass('evidence_months.' || name) IS NOT NULL THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(1111);
  -- Not to_regclass again: it reads this backend's cached catalog, which may not show
  -- the partition a concurrent call created while this one waited for the lock.
  EXECUTE format('CREATE TABLE IF NOT EXISTS evidence_months.%I PARTITION OF evidence_bodies FOR VALUES FROM (%L) TO (%L)',
    name, month, (month + interval '1 month')::date);
END $$ LANGUAGE plpgsql;
CREATE OR REPLACE FUNCTION evidence_body_place(month date) RETURNS date AS $$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM evidence_purged_months p WHERE p.month = $1)
    THEN 'infinity'::date ELSE $1 END
$$ LANGUAGE sql STABLE;
CREATE OR REPLACE FUNCTION evidence_body_month(retain timestamptz) RETURNS date AS $$
DECLARE
  month date := evidence_retain_month(retain);
BEGIN
  IF month = 'infinity' THEN RETURN month; END IF;
  PERFORM evidence_body_partition(month);
  PERFORM pg_advisory_xact_lock_shared(1110, evidence_month_key(month));
  RETURN evidence_body_place(month);
END $$ LANGUAGE plpgsql;`

export default class extends BaseSchema {
  async up() {
    this.schema.raw(MONTH_FUNCTIONS_1120)
  }

  /** Nothing to restore: the earlier definition only differed by the race. */
  async down() {}
}
