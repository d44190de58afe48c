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
 * portal-api.md › Metrics: the status each figure of a scope counts. A PAID
 * transaction is a successful collection and its amount is collected; REJECTED and
 * PENDING are counted apart.
 */
export const STATUS_COUNTED_AS = {
  successful: 'PAID',
  rejected: 'REJECTED',
  pending: 'PENDING',
} as const satisfies Record<string, TransactionStatus>

/**
 * portal-api.md › Transaction, status normalization: a recognized payment_status wins,
 * case-insensitively; otherwise legacy `S` is PAID, `R` REJECTED, anything else
 * (absent included) PENDING. Defined only here, as the expression of the generated
 * `transactions.status` column: lists, detail, filters and reporting read that column,
 * and the import writes the two raw values it is computed from. Migration 0500 wrote
 * it out; a change needs a migration of its own (schema_from_modules.spec.ts checks).
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

/**
 * portal-api.md › History item, Collections › "History behavior": the event types a
 * shown evidence kind appears as (in the order of `meta.coverage`), its direction, and
 * the coverage of an event type (`not_applicable` is reserved, never emitted). Which
 * kind shows as which is app/services/collections/history/evidence_kinds.ts.
 */
export const HISTORY_EVENT_TYPES = [
  'merchant_request',
  'dlt_response',
  'merchant_webhook_request',
  'merchant_webhook_response',
] as const
export type HistoryEventType = (typeof HISTORY_EVENT_TYPES)[number]
export const HISTORY_DIRECTIONS = ['merchant_to_dlt', 'dlt_to_merchant'] as const
export type HistoryDirection = (typeof HISTORY_DIRECTIONS)[number]
export const COVERAGE_STATES = ['captured', 'purged', 'not_captured'] as const
export type CoverageState = (typeof COVERAGE_STATES)[number]

// ---------------------------------------------------------------------------------
// History item (portal-api.md › History item, Payload projection): the capture states,
// omission reasons, event metadata bounds and payload allowlists the projection
// applies and the History item schema lists. Changing one changes what a snapshot
// projects to: bump PROJECTION_VERSION (app/services/collections/history/projection.ts).

/** portal-api.md › History item › capture_status. */
export const CAPTURE_STATUSES = ['available', 'omitted', 'unavailable', 'purged'] as const
export type CaptureStatus = (typeof CAPTURE_STATUSES)[number]

/** Capture states meaning no body was kept, for replies and synchronous responses alike. */
export const BODILESS_REPLY_STATUSES = [
  'no_response',
  'empty',
  'omitted_oversize',
  'omitted_unsupported_content_type',
  'omitted_binary',
  'omitted_sensitive',
] as const
/** Capture states only a synchronous response can have (its body is checked as JSON). */
export const SYNC_ONLY_CAPTURE_STATUSES = [
  'omitted_non_json',
  'omitted_invalid_json',
  'omitted_unsupported_shape',
  'omitted_no_permitted_fields',
] as const

/** Body capture states of merchant webhook replies. */
export const REPLY_BODY_CAPTURE_STATUSES = [
  ...BODILESS_REPLY_STATUSES,
  'captured',
  'captured_sanitized',
  'captured_invalid_json_text',
] as const
export type ReplyBodyCaptureStatus = (typeof REPLY_BODY_CAPTURE_STATUSES)[number]
/** Body capture states of the service's synchronous responses: the reply ones and four more. */
export const SYNC_BODY_CAPTURE_STATUSES = [
  ...REPLY_BODY_CAPTURE_STATUSES,
  ...SYNC_ONLY_CAPTURE_STATUSES,
] as const
export type BodyCaptureStatus = (typeof SYNC_BODY_CAPTURE_STATUSES)[number]

/** Omission reasons: the projection's own, then every bodiless capture state as itself. */
export const REASON_CODES = [
  'portal_field_allowlist',
  'merchant_response_field_allowlist',
  'payment_url_excluded',
  'legacy_body_unverified',
  'snapshot_limit_exceeded',
  'snapshot_schema_unsupported',
  'snapshot_unreadable',
  'snapshot_unavailable',
  'body_not_captured',
  ...BODILESS_REPLY_STATUSES,
  ...SYNC_ONLY_CAPTURE_STATUSES,
  'response_fields_excluded',
] as const
export type ReasonCode = (typeof REASON_CODES)[number]

/**
 * Bounds of a History item's event metadata (portal-api.md › History item): the import
 * refuses a value outside them, a read shows it as null, the schema publishes them. An
 * event id is 1 to EVENT_ID_MAX_LENGTH of EVENT_ID_CHARACTER; the schema states it as a
 * character pattern with a maxLength.
 */
export const EVENT_ID_CHARACTER = '[A-Za-z0-9_-]'
export const EVENT_ID_MAX_LENGTH = 128
export const EVENT_ID_PATTERN = new RegExp(`^${EVENT_ID_CHARACTER}{1,${EVENT_ID_MAX_LENGTH}}$`)
export const ATTEMPT_NUMBER_RANGE = { min: 1, max: 1_000_000 }
export const HTTP_STATUS_RANGE = { min: 100, max: 599 }
export const DURATION_MS_RANGE = { min: 0, max: 86_400_000 }

/**
 * portal-api.md › Payload projection: a payload's `merchant_transaction_id` and
 * `payment_brand`, kept only when they match.
 */
export const PAYLOAD_REFERENCE_PATTERN = /^[A-Za-z0-9_-]{1,100}$/
export const PAYLOAD_BRAND_PATTERN = /^[A-Za-z0-9_-]{1,20}$/
/** portal-api.md › Payload projection: a validated request's `channel`, an integer in range. */
export const PAYLOAD_CHANNEL_RANGE = { min: 1, max: 4 }

/** portal-api.md › Payload projection: the values a merchant reply or synchronous response may show. */
export const REPLY_BOOLEANS = ['acknowledged', 'ok', 'success', 'accepted', 'received'] as const
export const REPLY_STATUS_VALUES = [
  'ok',
  'success',
  'accepted',
  'received',
  'failed',
  'error',
] as const
export const REPLY_TEXT_VALUES = ['ok', 'ack', 'accepted', 'received'] as const
export const SYNC_ERROR_CODE_VALUES = [
  'TRANSACTION_REFERENCE_CONFLICT',
  'SUBMISSION_UNKNOWN',
  'SUBMISSION_IN_PROGRESS',
] as const
