import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * transaction_counts (migration 0503) and transaction_totals (0601) applied a
 * statement's changes in two passes, old rows subtracted, then new rows added (and
 * transaction_totals subtracted in join order): two writers of one merchant, one
 * moving rows from key X to Y and the other from Y to X, each held its first key and
 * waited for the other's, a deadlock (tests/functional/collections/rollup_concurrency.spec.ts).
 * Like transaction_scope_totals (0980), each statement now applies its net signed
 * changes per key in one upsert, in key order, so concurrent writers queue on the
 * same rows; a key whose figures the statement leaves as they were is not touched.
 * The triggers and the tables stay as they are; only the functions change.
 */

/** Signed count changes of transaction_counts, one row per changed transaction. */
const countChanges = (rows: string, sign: '' | '-') => `
  SELECT merchant_id, environment, status, currency, payment_brand, ${sign}1 AS total
    FROM ${rows}`

const upsertCounts = (changes: string) => `
  INSERT INTO transaction_counts AS c
    (merchant_id, environment, status, currency, payment_brand, total)
  SELECT merchant_id, environment, status, currency, payment_brand, sum(total)
    FROM (${changes}) AS changes
   GROUP BY 1, 2, 3, 4, 5 HAVING sum(total) <> 0
   ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (merchant_id, environment, status, currency, payment_brand)
  DO UPDATE SET total = c.total + EXCLUDED.total`

/** The signed figures of transaction_totals of each row of `rows` that has a creation time. */
const totalChanges = (rows: string, sign: '' | '-') => `
  SELECT merchant_id, environment, currency, created_at, payment_brand, status,
         ${sign}1 AS transaction_count, ${sign}coalesce(amount, 0) AS amount_total,
         ${sign}(amount IS NULL)::int AS null_amount_count
    FROM ${rows}
   WHERE created_at IS NOT NULL`

/*
| A merchant's deletion cascades to its transactions and to its transaction_totals
| rows: those need no subtraction, and re-creating them would violate the foreign key.
*/
const ofRemainingMerchants = (changes: string) => `
  SELECT * FROM (${changes}) AS changes
   WHERE EXISTS (SELECT 1 FROM merchants WHERE merchants.id = changes.merchant_id)`

const upsertTotals = (changes: string) => `
  INSERT INTO transaction_totals AS total
    (merchant_id, environment, currency, grain, period_start, payment_brand, status,
     transaction_count, amount_total, null_amount_count)
  SELECT merchant_id, environment, currency, grain.name,
         date_trunc(grain.name, created_at, 'UTC'), payment_brand, status,
         sum(transaction_count), sum(amount_total), sum(null_amount_count)
    FROM (${changes}) AS changes CROSS JOIN (VALUES ('day'), ('month')) AS grain (name)
   GROUP BY 1, 2, 3, 4, 5, 6, 7
  HAVING sum(transaction_count) <> 0 OR sum(amount_total) <> 0 OR sum(null_amount_count) <> 0
   ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (merchant_id, environment, currency, grain, period_start, payment_brand, status)
  DO UPDATE SET
    transaction_count = total.transaction_count + excluded.transaction_count,
    amount_total = total.amount_total + excluded.amount_total,
    null_amount_count = total.null_amount_count + excluded.null_amount_count`

const triggerFunction = (name: string, body: string) => `
  CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    ${body}
    RETURN NULL;
  END
  $$`

/** Migration 0503's function, for down(). */
const COUNTS_IN_TWO_PASSES = `
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
  END IF;`

/** Migration 0601's function, for down(). */
const totalsAggregate = (rows: string) => `
  SELECT merchant_id, environment, currency, grain.name AS grain,
         date_trunc(grain.name, created_at, 'UTC') AS period_start, payment_brand, status,
         count(*) AS transaction_count, coalesce(sum(amount), 0) AS amount_total,
         count(*) - count(amount) AS null_amount_count
    FROM ${rows} CROSS JOIN (VALUES ('day'), ('month')) AS grain (name)
   WHERE created_at IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5, 6, 7`
const TOTALS_IN_TWO_PASSES = `
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE transaction_totals AS total
       SET transaction_count = total.transaction_count - gone.transaction_count,
           amount_total = total.amount_total - gone.amount_total,
           null_amount_count = total.null_amount_count - gone.null_amount_count
      FROM (${totalsAggregate('old_rows')}) AS gone
     WHERE total.merchant_id = gone.merchant_id AND total.environment = gone.environment
       AND total.currency = gone.currency AND total.grain = gone.grain
       AND total.period_start = gone.period_start
       AND total.payment_brand = gone.payment_brand AND total.status = gone.status;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO transaction_totals AS total
      (merchant_id, environment, currency, grain, period_start, payment_brand, status,
       transaction_count, amount_total, null_amount_count)
    ${totalsAggregate('new_rows')}
     ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (merchant_id, environment, currency, grain, period_start, payment_brand, status)
    DO UPDATE SET
      transaction_count = total.transaction_count + excluded.transaction_count,
      amount_total = total.amount_total + excluded.amount_total,
      null_amount_count = total.null_amount_count + excluded.null_amount_count;
  END IF;`

export default class extends BaseSchema {
  async up() {
    this.schema.raw(
      triggerFunction(
        'transaction_counts_apply',
        `IF TG_OP = 'INSERT' THEN
           ${upsertCounts(countChanges('new_rows', ''))};
         ELSIF TG_OP = 'UPDATE' THEN
           ${upsertCounts(`${countChanges('old_rows', '-')} UNION ALL ${countChanges('new_rows', '')}`)};
         ELSIF TG_OP = 'DELETE' THEN
           ${upsertCounts(countChanges('old_rows', '-'))};
         ELSE
           DELETE FROM transaction_counts;
         END IF;`
      )
    )
    this.schema.raw(
      triggerFunction(
        'transaction_totals_apply',
        `IF TG_OP = 'INSERT' THEN
           ${upsertTotals(totalChanges('new_rows', ''))};
         ELSIF TG_OP = 'UPDATE' THEN
           ${upsertTotals(`${totalChanges('old_rows', '-')} UNION ALL ${totalChanges('new_rows', '')}`)};
         ELSE -- DELETE; TRUNCATE has its own function, transaction_totals_truncate
           ${upsertTotals(ofRemainingMerchants(totalChanges('old_rows', '-')))};
         END IF;`
      )
    )
  }

  async down() {
    this.schema.raw(triggerFunction('transaction_counts_apply', COUNTS_IN_TWO_PASSES))
    this.schema.raw(triggerFunction('transaction_totals_apply', TOTALS_IN_TWO_PASSES))
  }
}
