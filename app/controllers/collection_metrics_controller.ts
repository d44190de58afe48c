import type { HttpContext } from '@adonisjs/core/http'
import { respond } from '#http/responses'
import { validateQuery } from '#validators/rules/input'
import { chartInput, completeReportingQuery, metricsInput } from '#validators/reporting'
import { chartCollections, summarizeCollections } from '#services/reporting/collection_metrics'
import {
  MetricsChartTransformer,
  MetricsSummaryTransformer,
} from '#transformers/collection_metrics_transformer'

/** portal-api.md › GET /portal/collections/metrics and /charts (Both roles, strict). */
export default class CollectionMetricsController {
  /** GET /portal/collections/metrics */
  async summary(ctx: HttpContext) {
    const query = await completeReportingQuery(await validateQuery(ctx, metricsInput))
    const summary = await summarizeCollections(ctx.actor!, query)
    return respond(ctx, 'Success', MetricsSummaryTransformer.transform(summary))
  }

  /** GET /portal/collections/charts */
  async chart(ctx: HttpContext) {
    const { interval, ...fields } = await validateQuery(ctx, chartInput)
    const query = await completeReportingQuery(fields)
    const chart = await chartCollections(ctx.actor!, query, interval)
    return respond(ctx, 'Success', MetricsChartTransformer.transform(chart))
  }
}
