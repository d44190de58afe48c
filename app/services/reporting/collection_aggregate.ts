/*
| The one aggregate query of metrics and charts (portal-api.md › Metrics summary,
| Chart): for each bucket of a range, counts by normalized status, the numeric sum of
| PAID amounts, and whether a PAID amount is missing. One statement per request, on
| the read connection; bucket bounds are computed in TypeScript (app/reporting), so
| PostgreSQL's own time-zone data never decides a bucket. Rollup rows cover whole UTC
| months and days, raw rows the rest (app/reporting/query_plan.ts).
*/
import ApiError from '#exceptions/api_error'
import type { Environment } from '#validators/rules/environment'
import { readConnection } from '#support/read_connection'
import { sqlInstant } from '#reporting/calendar'
import { parseCents } from '#reporting/money'
import { planReads, type BucketRange } from '#reporting/query_plan'

export interface ReportingScope {
  merchantId: number
  environment: Environment
  currency: string
  paymentBrand?: string
}

/** Exact totals of one bucket (or of a whole summary). */
export interface StatusTotals {
  transactionCount: bigint
  successfulCount: bigint
  pendingCount: bigint
  rejectedCount: bigint
  /** Sum of PAID amounts, in cents. */
  collectionCents: bigint
}

export const emptyTotals = (): StatusTotals => ({
  transactionCount: 0n,
  successfulCount: 0n,
  pendingCount: 0n,
  rejectedCount: 0n,
  collectionCents: 0n,
})

export function addTotals(into: StatusTotals, other: StatusTotals) {
  into.transactionCount += other.transactionCount
  into.successfulCount += other.successfulCount
  into.pendingCount += other.pendingCount
  into.rejectedCount += other.rejectedCount
  into.collectionCents += other.collectionCents
}

/** `{"…","…"}`: a PostgreSQL array literal of the ranges' bucket indexes, starts and ends. */
function arrays(ranges: BucketRange[]) {
  const quoted = (values: string[]) => `{${values.map((value) => `"${value}"`).join(',')}}`
  return [
    `{${ranges.map((range) => range.bucket).join(',')}}`,
    quoted(ranges.map((range) => sqlInstant(range.from))),
    quoted(ranges.map((range) => sqlInstant(range.to))),
  ]
}

interface AggregateRow {
  bucket: number
  status: string
  transaction_count: string
  amount_total: string
  null_amount_count: string
}

/**
 * Totals of each of `buckets` (half-open, epoch microseconds, in order) for `scope`.
 * A PAID transaction without an amount anywhere in them is 503 SERVICE_UNAVAILABLE:
 * no total can be given for the request.
 */
export async function aggregateBuckets(
  scope: ReportingScope,
  buckets: ReadonlyArray<{ from: bigint; to: bigint }>
): Promise<StatusTotals[]> {
  const plan = planReads(buckets)
  const brand = scope.paymentBrand !== undefined
  const key = [scope.merchantId, scope.environment, scope.currency]
  const keyOf = (alias: string) =>
    `${alias}.merchant_id = ? AND ${alias}.environment = ? AND ${alias}.currency = ?` +
    (brand ? ` AND ${alias}.payment_brand = ?` : '')
  const keyBindings = brand ? [...key, scope.paymentBrand!] : key

  const rollup = (grain: 'day' | 'month') => `
    SELECT r.bucket, s.status, sum(s.transaction_count) AS transaction_count,
           sum(s.amount_total) AS amount_total, sum(s.null_amount_count) AS null_amount_count
      FROM unnest(?::int[], ?::timestamptz[], ?::timestamptz[]) AS r (bucket, lo, hi)
      JOIN transaction_totals AS s
        ON ${keyOf('s')} AND s.grain = '${grain}'
       AND s.period_start >= r.lo AND s.period_start < r.hi
     GROUP BY 1, 2`
  const sql = `
    SELECT r.bucket, t.status, count(*) AS transaction_count,
           coalesce(sum(t.amount), 0) AS amount_total,
           count(*) - count(t.amount) AS null_amount_count
      FROM unnest(?::int[], ?::timestamptz[], ?::timestamptz[]) AS r (bucket, lo, hi)
      JOIN transactions AS t
        ON ${keyOf('t')} AND t.created_at >= r.lo AND t.created_at < r.hi
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
  const result = await readConnection().rawQuery(sql, bindings)

  const totals = buckets.map(() => emptyTotals())
  for (const row of result.rows as AggregateRow[]) {
    const bucket = totals[row.bucket]
    const count = BigInt(row.transaction_count)
    if (count === 0n) continue // a rollup row whose transactions were all deleted
    bucket.transactionCount += count
    if (row.status === 'PAID') {
      if (BigInt(row.null_amount_count) > 0n) {
        throw ApiError.serviceUnavailable(
          'The metrics cannot be computed: a paid transaction in the range has no amount.'
        )
      }
      bucket.successfulCount += count
      bucket.collectionCents += parseCents(row.amount_total)
    } else if (row.status === 'REJECTED') {
      bucket.rejectedCount += count
    } else {
      bucket.pendingCount += count
    }
  }
  return totals
}
