/*
| portal-api.md › Metrics summary and Chart: the response shapes, each declared once as
| its JSON Schema (for the document) with its TypeScript type derived from it, which
| collection_metrics_transformer.ts returns.
*/
import { schema, type Static } from '#openapi/json_schema'
import { CURRENCY_CODE_PATTERN, ENVIRONMENTS, INTERVALS } from '#models/collections_vocabulary'
import { SHOWN_INSTANT_PATTERN } from '#validators/rules/timestamp'

/** Reporting-timezone offset and six fractional digits (decisions.md §2). */
const reportingInstant = () => schema.timestamp({ pattern: SHOWN_INSTANT_PATTERN })

const metricFields = {
  collection_total: schema.decimal({ description: 'Gross sum of PAID amounts, before fees.' }),
  transaction_count: schema.integer({ minimum: 0 }),
  successful_count: schema.integer({ minimum: 0 }),
  pending_count: schema.integer({ minimum: 0 }),
  rejected_count: schema.integer({ minimum: 0 }),
  success_rate_percent: schema.nullable(
    schema.decimal({
      pattern: '^(?:100\\.00|[0-9]{1,2}\\.[0-9]{2})$',
      description:
        'successful / total × 100, 0.00-100.00, two places; null when no transaction, `"0.00"` when none succeeded.',
    })
  ),
}

const scope = {
  environment: schema.enum(ENVIRONMENTS),
  currency: schema.string({ pattern: CURRENCY_CODE_PATTERN.source }),
  timezone: schema.string({ description: 'IANA identifier.' }),
}

export const MetricsTotals = schema.object(metricFields)
export type MetricsTotals = Static<typeof MetricsTotals>

export const MetricsSummary = schema.object({
  ...scope,
  from: reportingInstant(),
  to: reportingInstant(),
  as_of: schema.timestamp({ description: 'UTC observation marker (`Z`), not a filter.' }),
  date_basis: schema.const('created_at'),
  ...metricFields,
})
export type MetricsSummary = Static<typeof MetricsSummary>

export const ChartBucket = schema.object({
  period: schema.string({
    pattern: '^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$',
    description: '`YYYY-MM-DD` (day), `YYYY-MM` (month) or `YYYY` (year).',
  }),
  from: reportingInstant(),
  to: reportingInstant(),
  partial: schema.boolean({ description: 'True for a clipped first or last bucket.' }),
  ...metricFields,
})
export type ChartBucket = Static<typeof ChartBucket>

export const Chart = schema.object({
  ...scope,
  interval: schema.enum(INTERVALS),
  date_basis: schema.const('created_at'),
  from: reportingInstant(),
  to: reportingInstant(),
  as_of: schema.timestamp(),
  totals: schema.ref({ MetricsTotals }),
  buckets: schema.array(schema.ref({ ChartBucket })),
})
export type Chart = Static<typeof Chart>

/** Components of the document, in its order. */
export const reportingSchemas = { MetricsTotals, MetricsSummary, ChartBucket, Chart }
