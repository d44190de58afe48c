/*
| The one aggregate query of metrics and charts (portal-api.md › Metrics summary,
| Chart): for each bucket of a range, counts by normalized status, the numeric sum of
| PAID amounts, and whether a PAID amount is missing. One prepared statement per
| request, on the read connection; bucket bounds are computed in TypeScript (app/reporting), so
| PostgreSQL's own time-zone data never decides a bucket. Rollup rows cover whole UTC
| months and days, raw rows the rest (app/reporting/query_plan.ts).
*/
import ApiError from '#exceptions/api_error'
import type { Environment } from '#models/collections_vocabulary'
import { readConnection } from '#support/read_connection'
import { statementQuery } from '#support/direct_query'
import { aggregateStatement, type AggregateScope } from '#reporting/aggregate_statement'
import { parseCents } from '#reporting/money'
import { planReads } from '#reporting/query_plan'

export interface ReportingScope extends AggregateScope {
  environment: Environment
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

interface AggregateRow {
  bucket: number
  status: string
  transaction_count: string | number
  amount_total: string | number
  null_amount_count: string | number
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
  // Prepared: the plan is the same for every range (per-part index scans).
  const rows = await statementQuery<AggregateRow>(
    readConnection(),
    aggregateStatement(scope, planReads(buckets)),
    { prepare: true }
  )

  // Parts are signed (a whole month minus its overhang): sum per bucket and status
  // first, judge the missing PAID amounts on the sums.
  const totals = buckets.map(() => emptyTotals())
  const paidWithoutAmount = buckets.map(() => 0n)
  for (const row of rows) {
    const bucket = totals[row.bucket]
    const count = BigInt(row.transaction_count)
    bucket.transactionCount += count
    if (row.status === 'PAID') {
      bucket.successfulCount += count
      bucket.collectionCents += parseCents(String(row.amount_total))
      paidWithoutAmount[row.bucket] += BigInt(row.null_amount_count)
    } else if (row.status === 'REJECTED') {
      bucket.rejectedCount += count
    } else {
      bucket.pendingCount += count
    }
  }
  if (paidWithoutAmount.some((count) => count > 0n)) {
    throw ApiError.serviceUnavailable(
      'The metrics cannot be computed: a paid transaction in the range has no amount.'
    )
  }
  return totals
}
