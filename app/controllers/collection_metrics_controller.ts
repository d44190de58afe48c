import type { UserActor } from '#auth/actor'
import type { InputValue } from '#http/endpoint'
import {
  chartCollections,
  summarizeCollections,
} from '#services/collections/reporting/collection_metrics'
import type { collectionMetricsEndpoints as endpoints } from '#controllers/collection_metrics_endpoints'

/**
 * portal-api.md › GET /portal/collections/metrics and /charts (Both roles, strict).
 * The catalogue check runs beside the aggregate; its verdict is joined to the
 * request's own outcome (app/validators/rules/currency.ts).
 */
export default class CollectionMetricsController {
  /** GET /portal/collections/metrics */
  async summary(query: InputValue<typeof endpoints.summary>, actor: UserActor) {
    return summarizeCollections(actor, query)
  }

  /** GET /portal/collections/charts */
  async chart({ query, interval }: InputValue<typeof endpoints.chart>, actor: UserActor) {
    return chartCollections(actor, query, interval)
  }
}
