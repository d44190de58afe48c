import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * evidence_body_partition again: it no longer creates the partition of a month purged
 * whole (an import of that month's events stores their bodies loose), so that the
 * partition history:purge drops stays gone (purged_partitions.ts). The partitions of
 * months purged before are dropped by the next history:purge, not here.
 *
 * The SQL as this migration first ran it, written out (as 1120's): the other month
 * functions were redefined unchanged, so only this one is. A later change of
 * evidence_view.ts's MONTH_FUNCTIONS needs a migration of its own:
 * tests/functional/collections_ops/schema_from_modules.spec.ts fails until the
 * migrated database has what the module defines.
 */
const BODY_PARTITION_1130 = `
CREATE OR REPLACE FUNCTION evidence_body_partition(month date) RETURNS void AS $$
DECLARE
  name text := 'bodies_' || to_char(month, 'YYYY_MM');
BEGIN
  IF month = 'infinity' OR to_regclass('evidence_months.' || name) IS NOT NULL
    OR EXISTS (SELECT 1 FROM evidence_purged_months p WHERE p.month = $1) THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(1111);
  -- Not to_regclass again: it reads this backend's cached catalog, which may not show
  -- the partition a concurrent call created while this one waited for the lock.
  EXECUTE format('CREATE TABLE IF NOT EXISTS evidence_months.%I PARTITION OF evidence_bodies FOR VALUES FROM (%L) TO (%L)',
    name, month, (month + interval '1 month')::date);
END $$ LANGUAGE plpgsql;`

export default class extends BaseSchema {
  async up() {
    this.schema.raw(BODY_PARTITION_1130)
  }

  /** Nothing to restore: the earlier definition only created empty partitions more. */
  async down() {}
}
