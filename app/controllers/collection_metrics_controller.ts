import type { HttpContext } from '@adonisjs/core/http'
import { respond } from '#http/responses'
import { validateQuery } from '#validators/rules/input'
import { chartInput, completeReportingQuery, metricsInput } from '#validators/reporting'
import { afterCatalogue, requireSupportedCurrency } from '#services/collections/currency_catalogue'
import { chartCollections, summarizeCollections } from '#services/reporting/collection_metrics'
import {
  MetricsChartTransformer,
  MetricsSummaryTransformer,
} from '#transformers/collection_metrics_transformer'

/**
 * portal-api.md › GET /portal/collections/metrics and /charts (Both roles, strict).
 * The catalogue check and the aggregate run concurrently; the catalogue's verdict is
 * answered first (app/services/collections/currency_catalogue.ts › afterCatalogue).
 */
export default class CollectionMetricsController {
  /** GET /portal/collections/metrics */
  async summary(ctx: HttpContext) {
    const fields = await validateQuery(ctx, metricsInput)
    const { query, catalogue } = await completeReportingQuery(
      fields,
      requireSupportedCurrency('currency', fields.currency)
    )
    const summary = await afterCatalogue(catalogue, summarizeCollections(ctx.actor!, query))
    return respond(ctx, 'Success', MetricsSummaryTransformer.transform(summary))
  }

  /** GET /portal/collections/charts */
  async chart(ctx: HttpContext) {
    const { interval, ...fields } = await validateQuery(ctx, chartInput)
    const { query, catalogue } = await completeReportingQuery(
      fields,
      requireSupportedCurrency('currency', fields.currency)
    )
    // The catalogue's 422/503 first, then the interval's bucket limit, then the data.
    const chart = await afterCatalogue(catalogue, chartCollections(ctx.actor!, query, interval))
    return respond(ctx, 'Success', MetricsChartTransformer.transform(chart))
  }
}
