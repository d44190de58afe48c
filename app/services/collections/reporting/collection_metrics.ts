/*
| GET /portal/collections/metrics and /charts (portal-api.md › Metrics summary, Chart):
| the population is the actor's merchant, the environment, the currency and the
| optional brand, with creation time in [from, to); archived and credited
| transactions included, each row counted once. Plain operations taking
| (actor, input): the route validates, these compute, the transformer shapes.
*/
import { DateTime } from 'luxon'
import type { UserActor } from '#auth/actor'
import ApiError from '#exceptions/api_error'
import { BUCKET_LIMITS, buildBuckets } from '#services/collections/reporting/buckets'
import type { Interval } from '#models/collections_vocabulary'
import type { ReportingQuery } from '#validators/reporting'
import {
  addTotals,
  aggregateBuckets,
  emptyTotals,
  type ReportingScope,
} from '#services/collections/reporting/collection_aggregate'
import type { Bucket } from '#services/collections/reporting/buckets'
import type { StatusTotals } from '#services/collections/reporting/collection_aggregate'

/** What summarizeCollections returns for a Metrics summary. */
export interface MetricsSummaryView {
  query: ReportingQuery
  asOf: DateTime
  totals: StatusTotals
}

export interface ChartBucketView extends Bucket {
  totals: StatusTotals
}

/** What chartCollections returns for a Chart. */
export interface MetricsChartView {
  query: ReportingQuery
  interval: Interval
  asOf: DateTime
  totals: StatusTotals
  buckets: ChartBucketView[]
}

function scopeOf(actor: UserActor, query: ReportingQuery): ReportingScope {
  return {
    merchantId: actor.merchantId,
    environment: query.environment,
    currency: query.currency,
    paymentBrand: query.paymentBrand,
  }
}

/** The summary of [from, to). */
export async function summarizeCollections(
  actor: UserActor,
  query: ReportingQuery
): Promise<MetricsSummaryView> {
  const asOf = DateTime.utc()
  const [totals] = await aggregateBuckets(scopeOf(actor, query), [
    { from: query.from.epochMicros, to: query.to.epochMicros },
  ])
  return { query, asOf, totals }
}

/**
 * The chart of [from, to) by local day, month or year. More buckets than the
 * interval's limit (partial and empty ones counted) is a 422 on `interval`: a chart
 * is never truncated.
 */
export async function chartCollections(
  actor: UserActor,
  query: ReportingQuery,
  interval: Interval
): Promise<MetricsChartView> {
  const calendar = buildBuckets(
    query.from.epochMicros,
    query.to.epochMicros,
    query.timezone,
    interval
  )
  if (!calendar.ok) {
    throw ApiError.field(
      'interval',
      `The range has more than ${BUCKET_LIMITS[interval]} ${interval} buckets; choose a longer interval or a shorter range.`
    )
  }
  const asOf = DateTime.utc()
  const bucketTotals = await aggregateBuckets(scopeOf(actor, query), calendar.buckets)
  const totals = emptyTotals()
  for (const bucket of bucketTotals) addTotals(totals, bucket)
  return {
    query,
    interval,
    asOf,
    totals,
    buckets: calendar.buckets.map((bucket, index) => ({ ...bucket, totals: bucketTotals[index] })),
  }
}
