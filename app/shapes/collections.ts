/*
| portal-api.md › Transaction and History item: the response shapes, each declared once
| as its JSON Schema (for the document) with its TypeScript type derived from it.
| transaction_transformer.ts returns a Transaction from the row the list and detail
| read; the history projection (app/services/collections/history/) builds History
| items. The value lists, patterns and bounds these schemas list are the collections
| vocabulary's, which the projection and the import apply too; the item id is the
| history route's id shape (app/validators/rules/route_ids.ts).
*/
import { schema, type JsonSchema, type Static } from '#openapi/json_schema'
import { PAGE_META_FIELDS } from '#shapes/envelope'
import { routeIds } from '#validators/rules/route_ids'
import {
  ATTEMPT_NUMBER_RANGE,
  CAPTURE_STATUSES,
  COVERAGE_STATES,
  CURRENCY_CODE_PATTERN,
  DELIVERY_STATES,
  DURATION_MS_RANGE,
  ENVIRONMENTS,
  EVENT_ID_CHARACTER,
  EVENT_ID_MAX_LENGTH,
  HISTORY_DIRECTIONS,
  HISTORY_EVENT_TYPES,
  HTTP_STATUS_RANGE,
  PAYLOAD_BRAND_PATTERN,
  PAYLOAD_CHANNEL_RANGE,
  PAYLOAD_REFERENCE_PATTERN,
  REASON_CODES,
  REPLY_BODY_CAPTURE_STATUSES,
  REPLY_BOOLEANS,
  REPLY_STATUS_VALUES,
  REPLY_TEXT_VALUES,
  SYNC_BODY_CAPTURE_STATUSES,
  SYNC_ERROR_CODE_VALUES,
  TRANSACTION_STATUSES,
  type HistoryEventType,
} from '#models/collections_vocabulary'

const ENVIRONMENT = schema.enum(ENVIRONMENTS)

const MERCHANT_REPLY_CAPTURE = REPLY_BODY_CAPTURE_STATUSES
const SYNCHRONOUS_CAPTURE = SYNC_BODY_CAPTURE_STATUSES
const OMISSION_REASONS = REASON_CODES

const PAYMENT_STATUS = schema.enum(TRANSACTION_STATUSES)
const CURRENCY = schema.string({ pattern: CURRENCY_CODE_PATTERN.source })
const REFERENCE = schema.string({ pattern: PAYLOAD_REFERENCE_PATTERN.source })
/** Looser than the projection's AMOUNT_PATTERN (leading zeros), as published so far. */
const AMOUNT = schema.string({ pattern: '^[0-9]{1,12}\\.[0-9]{2}$' })

/** Every field optional: a projection keeps only the allowed fields that were present. */
const allOptional = (properties: Record<string, JsonSchema>, title: string): JsonSchema => ({
  title,
  ...schema.object(properties, { optional: Object.keys(properties) }),
})

/**
 * portal-api.md › Payload projection: fixed allowlists per payload kind, every other
 * field excluded. A field outside them in a response fails the suite.
 */
const PAYLOAD = schema.typed<Record<string, unknown> | null>({
  description:
    'The allowlisted projection of the body, or null (portal-api.md › Payload projection).',
  anyOf: [
    { type: 'null' },
    allOptional(
      {
        merchant_transaction_id: REFERENCE,
        payment_brand: schema.string({ pattern: PAYLOAD_BRAND_PATTERN.source }),
        currency: CURRENCY,
        amount: AMOUNT,
        payment_status: PAYMENT_STATUS,
        channel: schema.integer({
          minimum: PAYLOAD_CHANNEL_RANGE.min,
          maximum: PAYLOAD_CHANNEL_RANGE.max,
        }),
        is_card_payment: schema.boolean(),
      },
      'Validated merchant request or queued webhook (no channel or card flag)'
    ),
    allOptional(
      {
        ...Object.fromEntries(REPLY_BOOLEANS.map((field) => [field, schema.boolean()])),
        status: schema.enum(REPLY_STATUS_VALUES),
      },
      'Merchant reply (JSON)'
    ),
    {
      title: 'Merchant reply (text)',
      ...schema.object({ text: schema.enum(REPLY_TEXT_VALUES) }),
    },
    allOptional(
      {
        success: schema.boolean(),
        error_code: schema.enum(SYNC_ERROR_CODE_VALUES),
        data: allOptional(
          {
            merchant_transaction_id: REFERENCE,
            amount: AMOUNT,
            payment_status: PAYMENT_STATUS,
            is_card_payment: schema.boolean(),
            timestamp: schema.timestamp(),
          },
          'Synchronous response data'
        ),
      },
      "The service's synchronous response"
    ),
  ],
})

const COVERAGE = schema.enum(COVERAGE_STATES, {
  description:
    '`captured`: an unpurged record remains; `purged`: all records of the type purged; `not_captured`: none (`not_applicable` is reserved, never emitted).',
})

export const Transaction = schema.object({
  id: schema.integer({ description: 'Internal id (the `{transaction}` route id).' }),
  merchant_transaction_id: schema.string(),
  environment: ENVIRONMENT,
  amount: schema.nullable(schema.decimal()),
  currency: CURRENCY,
  status: schema.enum(TRANSACTION_STATUSES),
  payment_brand: schema.string(),
  payment_method: schema.null({ description: 'Always null.' }),
  created_at: schema.nullable(schema.timestamp()),
  updated_at: schema.nullable(schema.timestamp()),
  history_available: schema.boolean({
    description: 'Unpurged permitted history evidence exists (expired but unpurged counts).',
  }),
})
export type Transaction = Static<typeof Transaction>

export const HistoryItem = schema.object({
  id: schema.string({ pattern: routeIds.ulid.match.source, description: 'ULID.' }),
  transaction_id: schema.integer(),
  environment: ENVIRONMENT,
  event_type: schema.enum(HISTORY_EVENT_TYPES),
  direction: schema.enum(HISTORY_DIRECTIONS),
  captured_at: schema.timestamp(),
  capture_format: schema.string({
    examples: ['sanitized_snapshot', 'legacy_sanitized_snapshot'],
  }),
  capture_status: schema.enum(CAPTURE_STATUSES),
  event_id: schema.nullable(
    schema.string({ maxLength: EVENT_ID_MAX_LENGTH, pattern: `^${EVENT_ID_CHARACTER}+$` })
  ),
  attempt_number: schema.nullable(
    schema.integer({ minimum: ATTEMPT_NUMBER_RANGE.min, maximum: ATTEMPT_NUMBER_RANGE.max })
  ),
  http_status: schema.nullable(
    schema.integer({ minimum: HTTP_STATUS_RANGE.min, maximum: HTTP_STATUS_RANGE.max })
  ),
  delivery: schema.nullable(
    schema.object(
      {
        state: schema.enum(DELIVERY_STATES),
        duration_ms: schema.integer({
          minimum: DURATION_MS_RANGE.min,
          maximum: DURATION_MS_RANGE.max,
        }),
        body_capture_status: schema.nullable(schema.enum(MERCHANT_REPLY_CAPTURE)),
      },
      { optional: ['state', 'duration_ms', 'body_capture_status'] }
    )
  ),
  response: schema.nullable(
    schema.object({
      is_repeated_request: schema.boolean(),
      capture_stage: schema.const('prepared_for_return'),
      body_capture_status: schema.nullable(schema.enum(SYNCHRONOUS_CAPTURE)),
    })
  ),
  payload: PAYLOAD,
  omissions: schema.array(
    schema.object({
      field_path: schema.string({
        description:
          'Server vocabulary only, never a key the sender chose: `body` (the whole body), ' +
          'an allowlisted field whose value was not shown (`currency`, `data.amount`), or ' +
          '`*` / `data.*` for the fields at that level that are not on its allowlist ' +
          '(one entry per reason).',
      }),
      reason_code: schema.enum(OMISSION_REASONS),
    })
  ),
  retain_until: schema.timestamp(),
  purged_at: schema.nullable(schema.timestamp()),
})
export type HistoryItem = Static<typeof HistoryItem>

export const HistoryMeta = schema.object({
  ...PAGE_META_FIELDS,
  coverage: schema.object(
    Object.fromEntries(HISTORY_EVENT_TYPES.map((type) => [type, COVERAGE])) as Record<
      HistoryEventType,
      typeof COVERAGE
    >,
    { description: 'Computed over the whole scoped history, independent of the page.' }
  ),
})
export type HistoryMeta = Static<typeof HistoryMeta>

/** Components of the document, in its order. */
export const collectionsSchemas = { Transaction, HistoryItem, HistoryMeta }
