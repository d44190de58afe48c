/*
| The one aggregate query of metrics and charts (portal-api.md › Metrics summary,
| Chart): for each bucket of a range, counts by normalized status, the numeric sum of
| PAID amounts, and whether a PAID amount is missing. One prepared statement per
| request, on the read connection; bucket bounds are computed in TypeScript (app/services/collections/reporting), so
| PostgreSQL's own time-zone data never decides a bucket. Without a brand filter, the
| scope rollup's UTC months, days, hours and quarter-hours cover the buckets, raw rows
| what is left under a quarter-hour (app/services/collections/reporting/scope_plan.ts); with one, the brand
| rollup's UTC months and days, raw rows the rest (app/services/collections/reporting/query_plan.ts).
*/
import ApiError from '#exceptions/api_error'
import { STATUS_COUNTED_AS, type Environment } from '#models/collections_vocabulary'
import { readConnection } from '#support/read_connection'
import { statementQuery } from '#platform/direct_query'
import {
  aggregateStatement,
  type AggregateScope,
} from '#services/collections/reporting/aggregate_statement'
import { parseCents } from '#support/money'
import { planReads } from '#services/collections/reporting/query_plan'
import { planScopeReads } from '#services/collections/reporting/scope_plan'
import {
  scopeAggregateStatement,
  type ScopeStatement,
} from '#services/collections/reporting/scope_statement'

/** Exact totals of one bucket (or of a whole summary), as the aggregate counts them. */
export interface StatusTotals {
  transactionCount: bigint
  successfulCount: bigint
  pendingCount: bigint
  rejectedCount: bigint
  /** Sum of PAID amounts, in cents. */
  collectionCents: bigint
}

export interface ReportingScope extends AggregateScope {
  environment: Environment
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

interface BrandRow {
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
  const totals = buckets.map(() => emptyTotals())
  // Parts are signed (a whole period minus its overhang): sum per bucket first, judge
  // the missing PAID amounts on the sums.
  const paidWithoutAmount = buckets.map(() => 0n)
  if (scope.paymentBrand === undefined) {
    await addScopeRows(scope, buckets, totals, paidWithoutAmount)
  } else {
    await addBrandRows(scope, buckets, totals, paidWithoutAmount)
  }
  if (paidWithoutAmount.some((count) => count > 0n)) {
    throw ApiError.serviceUnavailable(
      'The metrics cannot be computed: a paid transaction in the range has no amount.'
    )
  }
  return totals
}

interface ScopeRow {
  grain: keyof ScopeStatement['slots']
  slot: number
  paid_count: string | number
  pending_count: string | number
  rejected_count: string | number
  paid_amount_total: string | number
  paid_null_amount_count: string | number
}

async function addScopeRows(
  scope: ReportingScope,
  buckets: ReadonlyArray<{ from: bigint; to: bigint }>,
  totals: StatusTotals[],
  paidWithoutAmount: bigint[]
) {
  const statement = scopeAggregateStatement(scope, planScopeReads(buckets))
  // Prepared: the plan is the same for every range (per-scan index ranges).
  const rows = await statementQuery<ScopeRow>(readConnection(), statement, { prepare: true })
  for (const row of rows) {
    const paid = BigInt(row.paid_count)
    const pending = BigInt(row.pending_count)
    const rejected = BigInt(row.rejected_count)
    const cents = parseCents(String(row.paid_amount_total))
    const paidNull = BigInt(row.paid_null_amount_count)
    for (const { bucket, sign } of statement.slots[row.grain][row.slot]) {
      const into = totals[bucket]
      const signed = BigInt(sign)
      into.transactionCount += signed * (paid + pending + rejected)
      into.successfulCount += signed * paid
      into.pendingCount += signed * pending
      into.rejectedCount += signed * rejected
      into.collectionCents += signed * cents
      paidWithoutAmount[bucket] += signed * paidNull
    }
  }
}

async function addBrandRows(
  scope: ReportingScope,
  buckets: ReadonlyArray<{ from: bigint; to: bigint }>,
  totals: StatusTotals[],
  paidWithoutAmount: bigint[]
) {
  // Prepared: the plan is the same for every range (per-part index scans).
  const rows = await statementQuery<BrandRow>(
    readConnection(),
    aggregateStatement(scope, planReads(buckets)),
    { prepare: true }
  )
  for (const row of rows) {
    const bucket = totals[row.bucket]
    const count = BigInt(row.transaction_count)
    bucket.transactionCount += count
    if (row.status === STATUS_COUNTED_AS.successful) {
      bucket.successfulCount += count
      bucket.collectionCents += parseCents(String(row.amount_total))
      paidWithoutAmount[row.bucket] += BigInt(row.null_amount_count)
    } else if (row.status === STATUS_COUNTED_AS.rejected) {
      bucket.rejectedCount += count
    } else {
      bucket.pendingCount += count
    }
  }
}
