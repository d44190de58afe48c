import type { HttpContext } from '@adonisjs/core/http'
import { respond } from '#http/responses'
import { validateQueryWithCatalogue } from '#http/request_input'
import { afterCatalogue } from '#validators/rules/currency'
import { chartInput, metricsInput, reportingQuery } from '#validators/reporting'
import { requireSupportedCurrency } from '#services/collections/transactions/currency_catalogue'
import {
  chartCollections,
  summarizeCollections,
} from '#services/collections/reporting/collection_metrics'
import {
  MetricsChartTransformer,
  MetricsSummaryTransformer,
} from '#transformers/collection_metrics_transformer'

const checkCurrency = (code: string) => requireSupportedCurrency('currency', code)

/**
 * portal-api.md › GET /portal/collections/metrics and /charts (Both roles, strict).
 * The catalogue check and the aggregate run concurrently; the catalogue's verdict is
 * joined to the request's own outcome (app/validators/rules/currency.ts).
 */
export default class CollectionMetricsController {
  /** GET /portal/collections/metrics */
  async summary(ctx: HttpContext) {
    const { input, catalogue } = await validateQueryWithCatalogue(ctx, metricsInput, checkCurrency)
    const query = reportingQuery(input)
    const summary = await afterCatalogue(catalogue, summarizeCollections(ctx.actor!, query))
    return respond(ctx, 'Success', MetricsSummaryTransformer.transform(summary))
  }

  /** GET /portal/collections/charts */
  async chart(ctx: HttpContext) {
    const { input, catalogue } = await validateQueryWithCatalogue(ctx, chartInput, checkCurrency)
    const query = reportingQuery(input)
    // An unsupported currency and the interval's bucket limit are one 422.
    const chart = await afterCatalogue(
      catalogue,
      chartCollections(ctx.actor!, query, input.interval)
    )
    return respond(ctx, 'Success', MetricsChartTransformer.transform(chart))
  }
}
