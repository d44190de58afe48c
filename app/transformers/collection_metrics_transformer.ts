/*
| portal-api.md › Metrics summary and Chart, field by field; decisions.md §2: range
| echoes and bucket bounds in the reporting timezone with six fractional digits,
| money as two-decimal strings, `as_of` a UTC timestamp.
*/
import { PortalTransformer } from '#transformers/portal_transformer'
import { formatInstant, formatInstantAt } from '#support/zoned_instants'
import { formatCents, successRatePercent } from '#support/money'
import type { ReportingQuery } from '#validators/reporting'
import type { Chart, ChartBucket, MetricsSummary, MetricsTotals } from '#shapes/reporting'
import type {
  MetricsChartView,
  MetricsSummaryView,
} from '#services/collections/reporting/collection_metrics'
import type { StatusTotals } from '#services/collections/reporting/collection_aggregate'
import { utcIso } from '#transformers/timestamps'

/** The six metric fields of a summary, of chart totals and of each bucket. */
export function metricFields(totals: StatusTotals): MetricsTotals {
  return {
    collection_total: formatCents(totals.collectionCents),
    transaction_count: Number(totals.transactionCount),
    successful_count: Number(totals.successfulCount),
    pending_count: Number(totals.pendingCount),
    rejected_count: Number(totals.rejectedCount),
    success_rate_percent: successRatePercent(totals.successfulCount, totals.transactionCount),
  }
}

function echoes(
  query: ReportingQuery
): Pick<MetricsSummary, 'environment' | 'currency' | 'timezone'> {
  return {
    environment: query.environment,
    currency: query.currency,
    timezone: query.timezone,
  }
}

function range(query: ReportingQuery): Pick<MetricsSummary, 'from' | 'to'> {
  return {
    from: formatInstant(query.from.epochMicros, query.timezone),
    to: formatInstant(query.to.epochMicros, query.timezone),
  }
}

export class MetricsSummaryTransformer extends PortalTransformer<MetricsSummaryView> {
  toObject(): MetricsSummary {
    const { query, asOf, totals } = this.resource
    return {
      ...echoes(query),
      ...range(query),
      as_of: utcIso(asOf),
      date_basis: 'created_at',
      ...metricFields(totals),
    }
  }
}

export class MetricsChartTransformer extends PortalTransformer<MetricsChartView> {
  toObject(): Chart {
    const { query, interval, asOf, totals, buckets } = this.resource
    // Each bucket ends where the next begins: format each bound once, at the offset
    // the calendar already read for it.
    let previous: { micros: bigint; text: string } | undefined
    const bound = (micros: bigint, offsetMs: number) => {
      if (previous?.micros !== micros) {
        previous = { micros, text: formatInstantAt(micros, offsetMs) }
      }
      return previous.text
    }
    return {
      ...echoes(query),
      interval,
      date_basis: 'created_at',
      ...range(query),
      as_of: utcIso(asOf),
      totals: metricFields(totals),
      buckets: buckets.map((bucket): ChartBucket => ({
        period: bucket.period,
        from: bound(bucket.from, bucket.fromOffsetMs),
        to: bound(bucket.to, bucket.toOffsetMs),
        partial: bucket.partial,
        ...metricFields(bucket.totals),
      })),
    }
  }
}
