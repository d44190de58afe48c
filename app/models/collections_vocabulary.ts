/*
| The values and patterns of the collections resources, each defined once: the
| validators, the import, the history projection, the response schemas and the SQL
| that need one of them import it from here.
*/

/** portal-api.md › Transaction, Collections: `test` or `live`, case-sensitive. */
export const ENVIRONMENTS = ['test', 'live'] as const
export type Environment = (typeof ENVIRONMENTS)[number]

/**
 * portal-api.md › Transaction, Payload projection: a currency is three upper-case
 * letters (an ISO 4217 code); which codes are supported is the currency catalogue's.
 */
export const CURRENCY_CODE_PATTERN = /^[A-Z]{3}$/

/**
 * A transaction amount as the import accepts it and a payload shows it (portal-api.md ›
 * Payload projection; decisions.md §2, §5): nonnegative, two places, at most 12 integer
 * digits (numeric(14,2)), no leading zero. The response schemas are looser: `decimal`
 * for amounts and sums, and the payload schema's pattern, which allows leading zeros.
 */
export const AMOUNT_PATTERN = /^(?:0|[1-9][0-9]{0,11})\.[0-9]{2}$/

/** portal-api.md › Transaction, States and transitions › Transaction status. */
export const TRANSACTION_STATUSES = ['PAID', 'PENDING', 'REJECTED'] as const
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number]

/**
 * portal-api.md › Transaction, status normalization: a recognized payment_status wins,
 * case-insensitively; otherwise legacy `S` is PAID, `R` REJECTED, anything else
 * (absent included) PENDING. Defined only here, as the expression of the generated
 * `transactions.status` column (migration 0500): lists, detail, filters and reporting
 * read that column, and the import writes the two raw values it is computed from.
 */
export const NORMALIZED_STATUS_SQL = `CASE
  WHEN upper(payment_status) IN (${TRANSACTION_STATUSES.map((status) => `'${status}'`).join(', ')}) THEN upper(payment_status)
  WHEN upper(legacy_status) = 'S' THEN 'PAID'
  WHEN upper(legacy_status) = 'R' THEN 'REJECTED'
  ELSE 'PENDING'
END`

/** portal-api.md › Chart: the intervals a chart's buckets span. */
export const INTERVALS = ['day', 'month', 'year'] as const
export type Interval = (typeof INTERVALS)[number]

/** portal-api.md › States and transitions › Merchant webhook delivery state. */
export const DELIVERY_STATES = [
  'pending',
  'delivering',
  'delivered',
  'failed',
  'exhausted',
] as const
export type DeliveryState = (typeof DELIVERY_STATES)[number]
