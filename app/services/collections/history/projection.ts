/*
| What the Portal's view of exchange evidence is made of (portal-api.md › History item,
| Payload projection): the bounds, versions, capture states and reason codes, the
| shapes of an item and of what it is built from, and the allowlists of every payload
| kind. Tables only: the projecting code is project_evidence.ts (the item) and
| project_body.ts (the body by payload kind), which read them from here, as do the
| import and the response schemas.
|
| Bump PROJECTION_VERSION whenever what a snapshot projects to changes (an allowlist,
| a rule, a reason): `node ace history:reproject` then re-projects the stored rows.
*/
import type { EvidenceKind, HistoryEventType } from '#services/collections/history/evidence_kinds'
import { parseTimestamp } from '#validators/rules/timestamp'
import {
  AMOUNT_PATTERN,
  CURRENCY_CODE_PATTERN,
  TRANSACTION_STATUSES,
  type Environment,
} from '#models/collections_vocabulary'
import type { HistoryItem } from '#shapes/collections'

export const SUPPORTED_SCHEMA_VERSIONS: ReadonlySet<number> = new Set([1, 2])
/** Encrypted snapshots over this size are never read (bytes of ciphertext). */
export const READ_BOUND_BYTES = 2 * 1024 * 1024
/** JSON response bodies are decoded up to this many bytes of JSON text... */
export const RESPONSE_DECODE_BOUND_BYTES = 256 * 1024
/** ...and this nesting depth (request bodies share the depth bound). */
export const DECODE_DEPTH_BOUND = 64
/**
 * The version of the projection's rules that a stored projection was made with. Rows
 * projected with another version are re-projected by `history:reproject`.
 */
export const PROJECTION_VERSION = 2
/** The omission path of "every field at this level that is not on the allowlist". */
export const UNLISTED_FIELDS = '*'

export const CAPTURE_STATUSES = ['available', 'omitted', 'unavailable', 'purged'] as const
export type CaptureStatus = (typeof CAPTURE_STATUSES)[number]

/** Capture states meaning no body was kept, for replies and synchronous responses alike. */
const BODILESS_REPLY_STATUSES = [
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

/** Capture states meaning no body was kept: the snapshot is never read for them. */
export const BODILESS_STATUSES = new Set<string>([
  ...BODILESS_REPLY_STATUSES,
  ...SYNC_ONLY_CAPTURE_STATUSES,
])

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

export const COVERAGE_EVENT_TYPES: readonly HistoryEventType[] = [
  'merchant_request',
  'dlt_response',
  'merchant_webhook_request',
  'merchant_webhook_response',
]
export type CoverageState = 'captured' | 'purged' | 'not_captured'

/**
 * Bounds of an item's event metadata (portal-api.md › History item): the import refuses
 * a value outside them, a read shows it as null.
 */
export const EVENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/
export const ATTEMPT_NUMBER_RANGE = { min: 1, max: 1_000_000 }
export const HTTP_STATUS_RANGE = { min: 100, max: 599 }
export const DURATION_MS_RANGE = { min: 0, max: 86_400_000 }

export interface Omission {
  field_path: string
  reason_code: ReasonCode
}

export type Payload = Record<string, unknown>

/**
 * What the projection of an evidence row's body depends on: the columns fixed when
 * the evidence is written. The import and `history:reproject` have these; a read has
 * them too (within `EvidenceRecord`).
 */
export interface EvidenceFacts {
  kind: EvidenceKind
  schemaVersion: number | null
  /** Whether a ciphertext is stored at all. */
  hasSnapshot: boolean
  /** Ciphertext bytes recorded at capture (null: nothing was captured). */
  snapshotSize: number | null
  contentType: string | null
  bodyCaptureStatus: string | null
  deliveryState: string | null
  durationMs: number | null
  isRepeatedRequest: boolean | null
  purgedAt: string | null
}

/** A stored evidence row as a read has it (timestamps already ISO 8601). */
export interface EvidenceRecord extends EvidenceFacts {
  id: string
  transactionId: number
  environment: Environment
  capturedAt: string
  captureFormat: string
  eventId: string | null
  attemptNumber: number | null
  httpStatus: number | null
  retainUntil: string
}

/**
 * The opened snapshot: tagged JSON text (`body`) or raw text (`body_text`). The import
 * passes the body it already parsed from its line as `parsed` (what JSON.parse of
 * `text` gives), so the text is not parsed twice; the bounds are still checked on it.
 */
export type OpenedSnapshot =
  { kind: 'json'; text: string; parsed?: { value: unknown } } | { kind: 'text'; text: string }

/** The part of a history item that depends on the snapshot: projected once, stored. */
export type StoredProjection = Pick<
  HistoryItem,
  'capture_status' | 'payload' | 'omissions' | 'response' | 'delivery'
>

/**
 * What a read found where the stored projection should be: the projection, nothing
 * (`missing`: not projected yet, see `history:reproject`), or bytes that do not open
 * (`unreadable`: corrupt, or moved from another row).
 */
export type StoredProjectionRead = StoredProjection | 'missing' | 'unreadable'

// ---------------------------------------------------------------------------------
// Field rules of the allowlists

export type FieldRule = (value: unknown) => boolean

const REFERENCE = /^[A-Za-z0-9_-]{1,100}$/
const BRAND = /^[A-Za-z0-9_-]{1,20}$/
const PAYMENT_STATUSES = new Set<string>(TRANSACTION_STATUSES)

const isString =
  (pattern: RegExp): FieldRule =>
  (value) =>
    typeof value === 'string' && pattern.test(value)
export const isBoolean: FieldRule = (value) => typeof value === 'boolean'

export const WEBHOOK_FIELDS: Record<string, FieldRule> = {
  merchant_transaction_id: isString(REFERENCE),
  payment_brand: isString(BRAND),
  currency: isString(CURRENCY_CODE_PATTERN),
  amount: isString(AMOUNT_PATTERN),
  payment_status: (value) => typeof value === 'string' && PAYMENT_STATUSES.has(value),
}

export const REQUEST_FIELDS: Record<string, FieldRule> = {
  ...WEBHOOK_FIELDS,
  channel: (value) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 4,
  is_card_payment: isBoolean,
}

// The value allowlists below are exported: the response schemas
// (app/transformers/schemas/collections.ts) are built from them, never restated.
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

export const REPLY_STATUSES = new Set<string>(REPLY_STATUS_VALUES)
export const REPLY_TEXTS = new Set<string>(REPLY_TEXT_VALUES)
export const SYNC_ERROR_CODES = new Set<string>(SYNC_ERROR_CODE_VALUES)

/** Explicit offset or Z, a valid date, 1-6 optional fractional digits. */
const isOffsetTimestamp: FieldRule = (value) => parseTimestamp(value) !== null

export const SYNC_DATA_FIELDS: Record<string, FieldRule> = {
  merchant_transaction_id: isString(REFERENCE),
  amount: isString(AMOUNT_PATTERN),
  payment_status: WEBHOOK_FIELDS.payment_status,
  is_card_payment: isBoolean,
  timestamp: isOffsetTimestamp,
}

/** Field names that look like links: excluded with their own reason. */
export const URL_LIKE = /url|uri|link|redirect|callback/i
