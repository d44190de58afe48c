import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The exact `total` of the transaction list without counting rows: at a million
 * transactions, `count(*)` of the unfiltered list costs far more than its page.
 * One row per merchant, environment, normalized status, currency and brand (a few
 * dozen per merchant), kept by statement-level
 * triggers in the same transaction as every write to `transactions` (the import's
 * COPY and INSERT ... ON CONFLICT included), so a reader sees counts and rows of the
 * same commit. Lists filtered by environment and any of status, currency and brand
 * sum it; a date range, reference or substring filter counts rows.
 *
 * Rows of a statement are aggregated once (transition tables), added in key order
 * (no deadlock between concurrent imports), and never below zero. No foreign key: a
 * merchant's deletion cascades to its transactions, whose delete trigger settles the
 * counts; rows of deleted merchants stay at 0 and are harmless.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw(`
      CREATE TABLE transaction_counts (
        merchant_id bigint NOT NULL,
        environment varchar(4) NOT NULL,
        status varchar(8) NOT NULL,
        currency char(3) NOT NULL,
        payment_brand varchar(100) NOT NULL,
        total bigint NOT NULL,
        PRIMARY KEY (merchant_id, environment, status, currency, payment_brand)
      )`)
    this.schema.raw(`
      CREATE OR REPLACE FUNCTION transaction_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          DELETE FROM transaction_counts;
          RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          INSERT INTO transaction_counts AS c
            (merchant_id, environment, status, currency, payment_brand, total)
          SELECT merchant_id, environment, status, currency, payment_brand, -count(*)
          FROM old_rows
          GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
          ON CONFLICT (merchant_id, environment, status, currency, payment_brand)
          DO UPDATE SET total = c.total + EXCLUDED.total;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          INSERT INTO transaction_counts AS c
            (merchant_id, environment, status, currency, payment_brand, total)
          SELECT merchant_id, environment, status, currency, payment_brand, count(*)
          FROM new_rows
          GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
          ON CONFLICT (merchant_id, environment, status, currency, payment_brand)
          DO UPDATE SET total = c.total + EXCLUDED.total;
        END IF;
        RETURN NULL;
      END
      $$`)
    this.schema.raw(`
      CREATE TRIGGER transaction_counts_insert AFTER INSERT ON transactions
      REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION transaction_counts_apply()`)
    this.schema.raw(`
      CREATE TRIGGER transaction_counts_update AFTER UPDATE ON transactions
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION transaction_counts_apply()`)
    this.schema.raw(`
      CREATE TRIGGER transaction_counts_delete AFTER DELETE ON transactions
      REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION transaction_counts_apply()`)
    this.schema.raw(`
      CREATE TRIGGER transaction_counts_truncate AFTER TRUNCATE ON transactions
      FOR EACH STATEMENT EXECUTE FUNCTION transaction_counts_apply()`)
    // Existing rows, with writers held off until the triggers see every later change.
    this.schema.raw('LOCK TABLE transactions IN SHARE MODE')
    this.schema.raw(`
      INSERT INTO transaction_counts
        (merchant_id, environment, status, currency, payment_brand, total)
      SELECT merchant_id, environment, status, currency, payment_brand, count(*)
      FROM transactions GROUP BY 1, 2, 3, 4, 5`)
  }

  async down() {
    this.schema.raw('DROP TRIGGER IF EXISTS transaction_counts_truncate ON transactions')
    this.schema.raw('DROP TRIGGER IF EXISTS transaction_counts_delete ON transactions')
    this.schema.raw('DROP TRIGGER IF EXISTS transaction_counts_update ON transactions')
    this.schema.raw('DROP TRIGGER IF EXISTS transaction_counts_insert ON transactions')
    this.schema.raw('DROP FUNCTION IF EXISTS transaction_counts_apply()')
    this.schema.raw('DROP TABLE IF EXISTS transaction_counts')
  }
}
