/*
| The one statement of a metrics or chart request (docs/reporting.md), built from the
| read plan: raw transactions for the cut edges, day and month rollup rows for whole
| UTC days and months, each part grouped by bucket and normalized status. Pure, so the
| service runs it and bench/reporting.ts times the very same text as bare SQL.
*/
import { sqlInstant } from '#support/instants'
import type { BucketRange, ReadPlan } from '#services/collections/reporting/query_plan'

export interface AggregateScope {
  merchantId: number
  environment: string
  currency: string
  paymentBrand?: string
}

/** PostgreSQL array literals of the ranges' bucket indexes, signs, starts and ends. */
function arrays(ranges: BucketRange[]) {
  const quoted = (values: string[]) => `{${values.map((value) => `"${value}"`).join(',')}}`
  return [
    `{${ranges.map((range) => range.bucket).join(',')}}`,
    `{${ranges.map((range) => range.sign).join(',')}}`,
    quoted(ranges.map((range) => sqlInstant(range.from))),
    quoted(ranges.map((range) => sqlInstant(range.to))),
  ]
}

/** SQL with `?` placeholders (knex style) and its bindings, in order. */
export function aggregateStatement(scope: AggregateScope, plan: ReadPlan) {
  const brand = scope.paymentBrand !== undefined
  const key = [scope.merchantId, scope.environment, scope.currency]
  const keyBindings: Array<string | number> = brand ? [...key, scope.paymentBrand!] : key
  const keyOf = (alias: string) =>
    `${alias}.merchant_id = ? AND ${alias}.environment = ? AND ${alias}.currency = ?` +
    (brand ? ` AND ${alias}.payment_brand = ?` : '')
  const ranges = `unnest(?::int[], ?::int[], ?::timestamptz[], ?::timestamptz[]) AS r (bucket, sign, lo, hi)`
  // Each part is added or subtracted (r.sign): see app/services/collections/reporting/query_plan.ts.
  // A LATERAL subquery kept apart by OFFSET 0, so that each part is its own range
  // scan of the rollup's primary key. As a plain join, PostgreSQL read all the
  // scope's month rows once and compared every part with every row.
  const rollup = (grain: 'day' | 'month') => `
    SELECT r.bucket, s.status, sum(r.sign * s.transaction_count) AS transaction_count,
           sum(r.sign * s.amount_total) AS amount_total,
           sum(r.sign * s.null_amount_count) AS null_amount_count
      FROM ${ranges}
     CROSS JOIN LATERAL (
       SELECT s.status, s.transaction_count, s.amount_total, s.null_amount_count
         FROM transaction_totals AS s
        WHERE ${keyOf('s')} AND s.grain = '${grain}'
          AND s.period_start >= r.lo AND s.period_start < r.hi
       OFFSET 0) AS s
     GROUP BY 1, 2`
  // The raw parts the same way, each a range of the reporting index: as a plain join,
  // with a brand filter, PostgreSQL chose a parallel scan of the merchant's
  // transactions compared with every part.
  const sql = `
    SELECT r.bucket, t.status, sum(r.sign) AS transaction_count,
           coalesce(sum(r.sign * t.amount), 0) AS amount_total,
           coalesce(sum(r.sign) FILTER (WHERE t.amount IS NULL), 0) AS null_amount_count
      FROM ${ranges}
     CROSS JOIN LATERAL (
       SELECT t.status, t.amount
         FROM transactions AS t
        WHERE ${keyOf('t')} AND t.created_at >= r.lo AND t.created_at < r.hi
       OFFSET 0) AS t
     GROUP BY 1, 2
    UNION ALL ${rollup('day')}
    UNION ALL ${rollup('month')}`
  const bindings = [
    ...arrays(plan.raw),
    ...keyBindings,
    ...arrays(plan.day),
    ...keyBindings,
    ...arrays(plan.month),
    ...keyBindings,
  ]
  return { sql, bindings }
}
