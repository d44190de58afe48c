/*
| The exact total of GET /portal/collections/transactions (portal-api.md › Collections,
| `meta.total`): the count statement of a list request, by the cheapest exact source
| its filters allow. The page statement and the request are in list_transactions.ts.
*/
import type { TransactionFilters } from '#services/collections/transactions/transaction_filters'
import { sqlInstant } from '#support/instants'
import { planReads, type BucketRange } from '#services/collections/reporting/query_plan'

/**
 * The exact total, by the cheapest exact source the filters allow:
 * - environment and any of status, currency and brand: summed from the maintained
 *   counts (migration 0503);
 * - the same plus a date range: the rollup of migration 0601 for the whole UTC
 *   months and days inside the range and `count(*)` of the raw rows at its cut edges
 *   (rangeCountQuery);
 * - a reference or substring filter: `count(*)` of the same conditions.
 */
export function countQuery(
  merchantId: number,
  filters: TransactionFilters,
  where: string,
  bindings: Array<string | number>
) {
  if (filters.merchant_transaction_id !== undefined || filters.query !== undefined) {
    return {
      sql: `SELECT count(*) AS total FROM transactions WHERE ${where}`,
      bindings,
      prepare: false,
    }
  }
  const conditions = ['merchant_id = ?', 'environment = ?']
  const values: Array<string | number> = [merchantId, filters.environment]
  for (const [column, value] of [
    ['status', filters.status],
    ['currency', filters.currency],
    ['payment_brand', filters.payment_brand],
  ] as const) {
    if (value === undefined) continue
    conditions.push(`${column} = ?`)
    values.push(value)
  }
  if (filters.from && filters.to) {
    const range = { from: filters.from.epochMicros, to: filters.to.epochMicros }
    return rangeCountQuery(conditions, values, range, filters.currency === undefined)
  }
  return {
    sql: `SELECT coalesce(sum(total), 0) AS total FROM transaction_counts
          WHERE ${conditions.join(' AND ')}`,
    bindings: values,
    prepare: true,
  }
}

/** PostgreSQL array literals of the parts' signs, starts and ends. */
function partArrays(parts: BucketRange[]) {
  return [
    `{${parts.map((part) => part.sign).join(',')}}`,
    `{${parts.map((part) => `"${sqlInstant(part.from)}"`).join(',')}}`,
    `{${parts.map((part) => `"${sqlInstant(part.to)}"`).join(',')}}`,
  ]
}

/**
 * The exact count of [from, to) under `conditions` (columns shared by `transactions`
 * and `transaction_totals`), read as the reporting aggregate reads its buckets
 * (app/services/collections/reporting/query_plan.ts): whole UTC months and days from the rollup, the rest
 * (at most a day at each edge) from the rows, each part added or subtracted. Every
 * part is exact and the statement reads one snapshot, so the sum is what `count(*)`
 * would give, from a few rollup rows instead of every index entry of the range.
 *
 * The rollup's key starts with (merchant, environment, currency): without a currency
 * filter, the merchant's currencies (the counts of migration 0503 keep a row for every
 * currency it ever had) are joined in, so each part is one index range per currency.
 */
function rangeCountQuery(
  conditions: string[],
  values: Array<string | number>,
  range: { from: bigint; to: bigint },
  byCurrency: boolean
) {
  const plan = planReads([range])
  const scope = (alias: string) =>
    conditions.map((condition) => `${alias}.${condition}`).join(' AND ')
  const parts = `unnest(?::int[], ?::timestamptz[], ?::timestamptz[]) AS r (sign, lo, hi)`
  // A join, not `currency = ANY (array)`, which the planner kept as a filter.
  const currencies = byCurrency
    ? ` CROSS JOIN (SELECT DISTINCT c.currency FROM transaction_counts c
          WHERE c.merchant_id = ? AND c.environment = ?) AS cur`
    : ''
  const sameCurrency = (alias: string) =>
    byCurrency ? ` AND ${alias}.currency = cur.currency` : ''
  const currencyBindings = byCurrency ? values.slice(0, 2) : []
  // Each part (and currency) its own range scan of the rollup's key, or of the
  // reporting index for the raw edges: LATERAL, fenced by OFFSET 0 as in
  // app/services/collections/reporting/aggregate_statement.ts, since as plain joins PostgreSQL read every
  // rollup row of the scope, or scanned the merchant's transactions, for every part.
  const rollup = (grain: 'day' | 'month') => `
    (SELECT coalesce(sum(r.sign * s.transaction_count), 0) FROM ${parts}${currencies}
       CROSS JOIN LATERAL (
         SELECT s.transaction_count FROM transaction_totals s
          WHERE ${scope('s')}${sameCurrency('s')}
            AND s.grain = '${grain}' AND s.period_start >= r.lo AND s.period_start < r.hi
         OFFSET 0) AS s)`
  return {
    // Prepared: with every part its own index range, the generic plan is as good.
    prepare: true,
    sql: `SELECT
      (SELECT coalesce(sum(r.sign), 0) FROM ${parts}${currencies}
         CROSS JOIN LATERAL (
           SELECT 1 FROM transactions t
            WHERE ${scope('t')}${sameCurrency('t')}
              AND t.created_at >= r.lo AND t.created_at < r.hi
           OFFSET 0) AS t)
      + ${rollup('day')}
      + ${rollup('month')} AS total`,
    bindings: [
      ...partArrays(plan.raw),
      ...currencyBindings,
      ...values,
      ...partArrays(plan.day),
      ...currencyBindings,
      ...values,
      ...partArrays(plan.month),
      ...currencyBindings,
      ...values,
    ],
  }
}
