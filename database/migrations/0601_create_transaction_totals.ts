import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The exact rollup behind long-range metrics and charts (docs/reporting.md): per
 * merchant, environment, currency, payment brand, normalized status, and UTC day and
 * UTC month (`grain`), the transaction count, the sum of amounts (numeric) and how
 * many amounts are null. A 10-year summary over a million transactions scanned every
 * row; it now sums about two thousand month rows, and reads day rows and
 * raw transactions only where a range or bucket bound cuts a UTC month or day
 * (app/services/collections/reporting/query_plan.ts, bench/README.md).
 *
 * Maintained transactionally by statement-level triggers with transition tables, so
 * every writer (collections:import, COPY, tests, a manual fix) keeps it exact in the
 * same transaction without calling anything:
 * - INSERT adds the new rows' aggregates (upsert, keys in a fixed order so that
 *   concurrent imports cannot deadlock on each other);
 * - UPDATE subtracts the old rows and adds the new ones (status, amount, brand or
 *   created_at may change);
 * - DELETE subtracts; TRUNCATE empties the rollup too.
 * Rows without created_at belong to no range and are not counted. The migration
 * backfills existing transactions under a SHARE lock (no write is lost meanwhile).
 * `reporting_rebuild_transaction_totals(merchant)` recomputes one merchant from scratch.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw(`
      CREATE TABLE transaction_totals (
        merchant_id bigint NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
        environment varchar(4) NOT NULL,
        currency char(3) NOT NULL,
        grain varchar(5) NOT NULL CHECK (grain IN ('day', 'month')),
        period_start timestamptz NOT NULL,
        payment_brand varchar(100) NOT NULL,
        status varchar(8) NOT NULL,
        transaction_count bigint NOT NULL,
        amount_total numeric NOT NULL,
        null_amount_count bigint NOT NULL,
        PRIMARY KEY (merchant_id, environment, currency, grain, period_start, payment_brand, status)
      )`)

    // One aggregate of a set of transaction rows per grain; `rows` is a table name.
    const aggregate = (rows: string) => `
      SELECT merchant_id, environment, currency, grain.name AS grain,
             date_trunc(grain.name, created_at, 'UTC') AS period_start, payment_brand, status,
             count(*) AS transaction_count, coalesce(sum(amount), 0) AS amount_total,
             count(*) - count(amount) AS null_amount_count
        FROM ${rows} CROSS JOIN (VALUES ('day'), ('month')) AS grain (name)
       WHERE created_at IS NOT NULL
       GROUP BY 1, 2, 3, 4, 5, 6, 7`
    const columns = `merchant_id, environment, currency, grain, period_start, payment_brand, status,
                     transaction_count, amount_total, null_amount_count`

    this.schema.raw(`
      CREATE OR REPLACE FUNCTION transaction_totals_apply() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          UPDATE transaction_totals AS total
             SET transaction_count = total.transaction_count - gone.transaction_count,
                 amount_total = total.amount_total - gone.amount_total,
                 null_amount_count = total.null_amount_count - gone.null_amount_count
            FROM (${aggregate('old_rows')}) AS gone
           WHERE total.merchant_id = gone.merchant_id AND total.environment = gone.environment
             AND total.currency = gone.currency AND total.grain = gone.grain
             AND total.period_start = gone.period_start
             AND total.payment_brand = gone.payment_brand AND total.status = gone.status;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          INSERT INTO transaction_totals AS total (${columns})
          ${aggregate('new_rows')}
           ORDER BY 1, 2, 3, 4, 5, 6, 7
          ON CONFLICT (merchant_id, environment, currency, grain, period_start, payment_brand, status)
          DO UPDATE SET
            transaction_count = total.transaction_count + excluded.transaction_count,
            amount_total = total.amount_total + excluded.amount_total,
            null_amount_count = total.null_amount_count + excluded.null_amount_count;
        END IF;
        RETURN NULL;
      END
      $$`)
    this.schema.raw(`
      CREATE TRIGGER transaction_totals_insert AFTER INSERT ON transactions
        REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION transaction_totals_apply()`)
    this.schema.raw(`
      CREATE TRIGGER transaction_totals_update AFTER UPDATE ON transactions
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION transaction_totals_apply()`)
    this.schema.raw(`
      CREATE TRIGGER transaction_totals_delete AFTER DELETE ON transactions
        REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION transaction_totals_apply()`)

    this.schema.raw(`
      CREATE OR REPLACE FUNCTION transaction_totals_truncate() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM transaction_totals;
        RETURN NULL;
      END
      $$`)
    this.schema.raw(`
      CREATE TRIGGER transaction_totals_truncate AFTER TRUNCATE ON transactions
        FOR EACH STATEMENT EXECUTE FUNCTION transaction_totals_truncate()`)

    // Recomputes one merchant's rollup from its transactions (operators, and the
    // reconciliation test). Holds the merchant's transactions against writers first.
    this.schema.raw(`
      CREATE OR REPLACE FUNCTION reporting_rebuild_transaction_totals(target bigint) RETURNS void
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM transactions WHERE merchant_id = target FOR SHARE;
        DELETE FROM transaction_totals WHERE merchant_id = target;
        INSERT INTO transaction_totals (${columns})
        SELECT * FROM (${aggregate('transactions')}) AS fresh WHERE merchant_id = target;
      END
      $$`)

    this.schema.raw(`LOCK TABLE transactions IN SHARE MODE`)
    this.schema.raw(`INSERT INTO transaction_totals (${columns}) ${aggregate('transactions')}`)
  }

  async down() {
    this.schema.raw(`DROP TRIGGER IF EXISTS transaction_totals_truncate ON transactions`)
    this.schema.raw(`DROP TRIGGER IF EXISTS transaction_totals_delete ON transactions`)
    this.schema.raw(`DROP TRIGGER IF EXISTS transaction_totals_update ON transactions`)
    this.schema.raw(`DROP TRIGGER IF EXISTS transaction_totals_insert ON transactions`)
    this.schema.raw(`DROP FUNCTION IF EXISTS reporting_rebuild_transaction_totals(bigint)`)
    this.schema.raw(`DROP FUNCTION IF EXISTS transaction_totals_truncate()`)
    this.schema.raw(`DROP FUNCTION IF EXISTS transaction_totals_apply()`)
    this.schema.raw(`DROP TABLE IF EXISTS transaction_totals`)
  }
}
