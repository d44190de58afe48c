import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The rollup behind metrics and charts without a brand filter (docs/reporting.md):
 * per merchant, environment, currency and UTC quarter-hour, hour, day and month
 * (`grain`), the counts by normalized status, the sum of PAID amounts (numeric) and
 * how many PAID amounts are null. No brand and no status in the key, so one row per
 * period: a local day in any zone whose offset is a multiple of 15 minutes (every
 * offset in use today, +05:30, +05:45 and +12:45 included) is one UTC day row plus or
 * minus a few hour and quarter rows at its edges, instead of every transaction of the
 * day. Offsets that are not (local mean time before standard time) leave a raw edge
 * of under 15 minutes, read from the transactions (app/services/collections/reporting/scope_plan.ts).
 *
 * Kept like transaction_totals (migration 0601), by statement-level triggers with
 * transition tables, in the writer's own transaction; each statement's changes are
 * one upsert of signed deltas (old rows subtracted, new rows added) in key order, so
 * concurrent writers queue on the same rows instead of deadlocking, and a change that
 * leaves a period's figures as they were touches no row. Rows without created_at
 * belong to no range and are not counted. The migration backfills existing
 * transactions under a SHARE lock, and `reporting_rebuild_transaction_totals(merchant)`
 * now rebuilds this rollup too.
 */
/** The signed figures of each row of `rows` that has a creation time. */
const signedFigures = (rows: string, sign: '' | '-') => `
  SELECT merchant_id, environment, currency, created_at,
         ${sign}(status = 'PAID')::int AS paid_count,
         ${sign}(status = 'PENDING')::int AS pending_count,
         ${sign}(status = 'REJECTED')::int AS rejected_count,
         CASE WHEN status = 'PAID' THEN ${sign}coalesce(amount, 0) ELSE 0 END AS paid_amount_total,
         ${sign}(status = 'PAID' AND amount IS NULL)::int AS paid_null_amount_count
    FROM ${rows}
   WHERE created_at IS NOT NULL`

/*
| A merchant's deletion cascades to its transactions and to its rollup rows: those
| need no subtraction, and re-creating them would violate the foreign key.
*/
const ofRemainingMerchants = (figures: string) => `
  SELECT * FROM (${figures}) AS figures
   WHERE EXISTS (SELECT 1 FROM merchants WHERE merchants.id = figures.merchant_id)`

const COLUMNS = `merchant_id, environment, currency, grain, period_start, paid_count, pending_count,
                 rejected_count, paid_amount_total, paid_null_amount_count`

const SUMS = `sum(paid_count) AS paid_count, sum(pending_count) AS pending_count,
  sum(rejected_count) AS rejected_count, sum(paid_amount_total) AS paid_amount_total,
  sum(paid_null_amount_count) AS paid_null_amount_count`

const CHANGED = `sum(paid_count) <> 0 OR sum(pending_count) <> 0 OR sum(rejected_count) <> 0
  OR sum(paid_amount_total) <> 0 OR sum(paid_null_amount_count) <> 0`

/*
| The per-period sums of `figures`, without the periods they leave unchanged: rows
| summed into UTC quarter-hours (from a UTC midnight) once, and the quarter sums into
| hours, days and months, rather than every row four times.
*/
const periodSums = (figures: string) => `
  WITH quarters AS (
    SELECT merchant_id, environment, currency,
           date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00') AS period_start,
           ${SUMS}
      FROM (${figures}) AS figures
     GROUP BY 1, 2, 3, 4
  )
  SELECT merchant_id, environment, currency, 'quarter' AS grain, period_start, paid_count,
         pending_count, rejected_count, paid_amount_total, paid_null_amount_count
    FROM quarters
   WHERE paid_count <> 0 OR pending_count <> 0 OR rejected_count <> 0
      OR paid_amount_total <> 0 OR paid_null_amount_count <> 0
  UNION ALL
  SELECT merchant_id, environment, currency, grain.name, date_trunc(grain.name, period_start, 'UTC'),
         ${SUMS}
    FROM quarters CROSS JOIN (VALUES ('hour'), ('day'), ('month')) AS grain (name)
   GROUP BY 1, 2, 3, 4, 5 HAVING ${CHANGED}`

const upsert = (figures: string) => `
  INSERT INTO transaction_scope_totals AS total (${COLUMNS})
  SELECT * FROM (${periodSums(figures)}) AS sums
   ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (merchant_id, environment, currency, grain, period_start) DO UPDATE SET
    paid_count = total.paid_count + excluded.paid_count,
    pending_count = total.pending_count + excluded.pending_count,
    rejected_count = total.rejected_count + excluded.rejected_count,
    paid_amount_total = total.paid_amount_total + excluded.paid_amount_total,
    paid_null_amount_count = total.paid_null_amount_count + excluded.paid_null_amount_count`

/** Migration 0601's rebuild, as it was before this one. */
const REBUILD_TOTALS_ONLY = `
  PERFORM 1 FROM transactions WHERE merchant_id = target FOR SHARE;
  DELETE FROM transaction_totals WHERE merchant_id = target;
  INSERT INTO transaction_totals (merchant_id, environment, currency, grain, period_start,
                                  payment_brand, status, transaction_count, amount_total,
                                  null_amount_count)
  SELECT merchant_id, environment, currency, grain.name, date_trunc(grain.name, created_at, 'UTC'),
         payment_brand, status, count(*), coalesce(sum(amount), 0), count(*) - count(amount)
    FROM transactions CROSS JOIN (VALUES ('day'), ('month')) AS grain (name)
   WHERE created_at IS NOT NULL AND merchant_id = target
   GROUP BY 1, 2, 3, 4, 5, 6, 7;`

const rebuildFunction = (body: string) => `
  CREATE OR REPLACE FUNCTION reporting_rebuild_transaction_totals(target bigint) RETURNS void
  LANGUAGE plpgsql AS $$
  BEGIN
    ${body}
  END
  $$`

export default class extends BaseSchema {
  async up() {
    this.schema.raw(`
      CREATE TABLE transaction_scope_totals (
        merchant_id bigint NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
        environment varchar(4) NOT NULL,
        currency char(3) NOT NULL,
        grain varchar(7) NOT NULL CHECK (grain IN ('quarter', 'hour', 'day', 'month')),
        period_start timestamptz NOT NULL,
        paid_count bigint NOT NULL,
        pending_count bigint NOT NULL,
        rejected_count bigint NOT NULL,
        paid_amount_total numeric NOT NULL,
        paid_null_amount_count bigint NOT NULL,
        -- The figures ride in the key's index: a chart's scans are index-only, where
        -- fetching every row from the heap took most of the statement.
        PRIMARY KEY (merchant_id, environment, currency, grain, period_start)
          INCLUDE (paid_count, pending_count, rejected_count, paid_amount_total,
                   paid_null_amount_count)
      )`)

    this.schema.raw(`
      CREATE OR REPLACE FUNCTION transaction_scope_totals_apply() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          ${upsert(signedFigures('new_rows', ''))};
        ELSIF TG_OP = 'UPDATE' THEN
          ${upsert(`${signedFigures('old_rows', '-')} UNION ALL ${signedFigures('new_rows', '')}`)};
        ELSIF TG_OP = 'DELETE' THEN
          ${upsert(ofRemainingMerchants(signedFigures('old_rows', '-')))};
        ELSE
          DELETE FROM transaction_scope_totals;
        END IF;
        RETURN NULL;
      END
      $$`)
    this.schema.raw(`
      CREATE TRIGGER transaction_scope_totals_insert AFTER INSERT ON transactions
        REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION transaction_scope_totals_apply()`)
    this.schema.raw(`
      CREATE TRIGGER transaction_scope_totals_update AFTER UPDATE ON transactions
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION transaction_scope_totals_apply()`)
    this.schema.raw(`
      CREATE TRIGGER transaction_scope_totals_delete AFTER DELETE ON transactions
        REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION transaction_scope_totals_apply()`)
    this.schema.raw(`
      CREATE TRIGGER transaction_scope_totals_truncate AFTER TRUNCATE ON transactions
        FOR EACH STATEMENT EXECUTE FUNCTION transaction_scope_totals_apply()`)

    this.schema.raw(
      rebuildFunction(`${REBUILD_TOTALS_ONLY}
        DELETE FROM transaction_scope_totals WHERE merchant_id = target;
        INSERT INTO transaction_scope_totals (${COLUMNS})
        ${periodSums(`SELECT * FROM (${signedFigures('transactions', '')}) AS scoped WHERE merchant_id = target`)};`)
    )

    // The backfill reads every transaction: the per-statement bound of requests
    // (DATABASE_STATEMENT_TIMEOUT_MS) would stop it on a large table.
    this.schema.raw(`SET LOCAL statement_timeout = 0`)
    this.schema.raw(`LOCK TABLE transactions IN SHARE MODE`)
    this.schema.raw(
      `INSERT INTO transaction_scope_totals (${COLUMNS}) ${periodSums(signedFigures('transactions', ''))}`
    )
  }

  async down() {
    this.schema.raw(rebuildFunction(REBUILD_TOTALS_ONLY))
    this.schema.raw(`DROP TRIGGER IF EXISTS transaction_scope_totals_truncate ON transactions`)
    this.schema.raw(`DROP TRIGGER IF EXISTS transaction_scope_totals_delete ON transactions`)
    this.schema.raw(`DROP TRIGGER IF EXISTS transaction_scope_totals_update ON transactions`)
    this.schema.raw(`DROP TRIGGER IF EXISTS transaction_scope_totals_insert ON transactions`)
    this.schema.raw(`DROP FUNCTION IF EXISTS transaction_scope_totals_apply()`)
    this.schema.raw(`DROP TABLE IF EXISTS transaction_scope_totals`)
  }
}
