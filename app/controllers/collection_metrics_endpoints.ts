/*
| portal-api.md › Collections: metrics summary and charts, the endpoints of
| CollectionMetricsController.
|
| The query parameters are documented from the validators the routes validate with
| (#validators/reporting); overrides only where a VineJS rule emits no JSON Schema.
*/
import { chartInput, metricsInput, reportingQuery } from '#validators/reporting'
import { ref } from '#openapi/components'
import type { InputOf } from '#validators/rules/input'
import { endpointsOf } from '#http/endpoint'
import { portalStack } from '#http/stacks'
import {
  checkCurrency,
  COLLECTIONS_DESCRIPTIONS,
  COLLECTIONS_OVERRIDES,
} from '#controllers/collections_endpoints'
import {
  MetricsChartTransformer,
  MetricsSummaryTransformer,
} from '#transformers/collection_metrics_transformer'

/** The IANA rule of `timezone` is custom (no JSON Schema of its own). */
const OVERRIDES = { ...COLLECTIONS_OVERRIDES, timezone: { type: 'string', minLength: 1 } }

const DESCRIPTIONS = {
  ...COLLECTIONS_DESCRIPTIONS,
  from: 'Start of the range (inclusive), timestamp grammar of the collections filters. The range is at most ten calendar years measured from `from` in the reporting timezone (leap-day anniversaries clipped).',
  to: 'End of the range (exclusive); `from` < `to`.',
  timezone:
    'IANA identifier (default `Asia/Manila`, `REPORTING_DEFAULT_TIMEZONE`); numeric offsets are rejected (422). A misconfigured default is 503 `SERVICE_UNAVAILABLE`.',
  payment_brand: 'Optional brand filter, max 100.',
  interval:
    'Bucket size. At most 366 daily, 120 monthly or 10 yearly buckets, partial and empty ones included; more is 422 on `interval` (never truncated).',
}

const POPULATION =
  'Population: stored collection transactions of the merchant, environment, currency and optional brand created in [from, to); archived and credited included. A PAID transaction with a null amount makes the whole answer 503 `SERVICE_UNAVAILABLE`. Rejected query fields: pagination, status, search, merchant references, `as_of` (and `interval` on metrics).'

export const collectionMetricsEndpoints = endpointsOf({
  summary: {
    method: 'get',
    path: '/api/v1/portal/collections/metrics',
    name: 'collections.metrics',
    stack: portalStack(),
    operationId: 'getCollectionMetrics',
    tag: 'Reporting',
    summary: 'Collection metrics summary',
    description: POPULATION,
    query: {
      input: metricsInput,
      catalogue: checkCurrency,
      as: reportingQuery,
      overrides: OVERRIDES,
      descriptions: DESCRIPTIONS,
    },
    response: {
      description: 'The summary.',
      data: ref('MetricsSummary'),
      transformer: MetricsSummaryTransformer,
      message: 'Success',
    },
  },
  chart: {
    method: 'get',
    path: '/api/v1/portal/collections/charts',
    name: 'collections.charts',
    stack: portalStack(),
    operationId: 'getCollectionChart',
    tag: 'Reporting',
    summary: 'Collection chart by day, month or year',
    description: `${POPULATION} Buckets follow the reporting timezone (a day may last 23 or 25 hours); bucket totals reconcile with \`totals\`, and the overall rate uses overall counts.`,
    query: {
      input: chartInput,
      catalogue: checkCurrency,
      as: (input: InputOf<typeof chartInput>) => ({
        query: reportingQuery(input),
        interval: input.interval,
      }),
      overrides: OVERRIDES,
      descriptions: DESCRIPTIONS,
    },
    // An unsupported currency and the interval's bucket limit are one 422.
    response: {
      description: 'The chart.',
      data: ref('Chart'),
      transformer: MetricsChartTransformer,
      message: 'Success',
    },
  },
})
