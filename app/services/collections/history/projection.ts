/*
| What the Portal's view of exchange evidence is made of (portal-api.md › History item,
| Payload projection): the bounds and versions, the shapes of an item and of what it
| is built from, and the allowlists of every payload kind. The capture states, reason
| codes, event metadata bounds and payload values are the collections vocabulary's
| (app/models/collections_vocabulary.ts), shared with the import and the response
| schemas. Tables only: the projecting code is project_evidence.ts (the item) and
| project_body.ts (the body by payload kind), which read them from here.
|
| Bump PROJECTION_VERSION whenever what a snapshot projects to changes (an allowlist,
| a rule, a reason): `node ace history:reproject` then re-projects the stored rows.
*/
import type { EvidenceKind } from '#services/collections/history/evidence_kinds'
import { parseTimestamp } from '#validators/rules/timestamp'
import {
  AMOUNT_PATTERN,
  BODILESS_REPLY_STATUSES,
  CURRENCY_CODE_PATTERN,
  PAYLOAD_BRAND_PATTERN,
  PAYLOAD_CHANNEL_RANGE,
  PAYLOAD_REFERENCE_PATTERN,
  REPLY_STATUS_VALUES,
  REPLY_TEXT_VALUES,
  SYNC_ERROR_CODE_VALUES,
  SYNC_ONLY_CAPTURE_STATUSES,
  TRANSACTION_STATUSES,
  type Environment,
  type ReasonCode,
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

/** Capture states meaning no body was kept: the snapshot is never read for them. */
export const BODILESS_STATUSES = new Set<string>([
  ...BODILESS_REPLY_STATUSES,
  ...SYNC_ONLY_CAPTURE_STATUSES,
])

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

const PAYMENT_STATUSES = new Set<string>(TRANSACTION_STATUSES)

const isString =
  (pattern: RegExp): FieldRule =>
  (value) =>
    typeof value === 'string' && pattern.test(value)
export const isBoolean: FieldRule = (value) => typeof value === 'boolean'

export const WEBHOOK_FIELDS: Record<string, FieldRule> = {
  merchant_transaction_id: isString(PAYLOAD_REFERENCE_PATTERN),
  payment_brand: isString(PAYLOAD_BRAND_PATTERN),
  currency: isString(CURRENCY_CODE_PATTERN),
  amount: isString(AMOUNT_PATTERN),
  payment_status: (value) => typeof value === 'string' && PAYMENT_STATUSES.has(value),
}

export const REQUEST_FIELDS: Record<string, FieldRule> = {
  ...WEBHOOK_FIELDS,
  channel: (value) =>
    Number.isInteger(value) &&
    (value as number) >= PAYLOAD_CHANNEL_RANGE.min &&
    (value as number) <= PAYLOAD_CHANNEL_RANGE.max,
  is_card_payment: isBoolean,
}

export const REPLY_STATUSES = new Set<string>(REPLY_STATUS_VALUES)
export const REPLY_TEXTS = new Set<string>(REPLY_TEXT_VALUES)
export const SYNC_ERROR_CODES = new Set<string>(SYNC_ERROR_CODE_VALUES)

/** Explicit offset or Z, a valid date, 1-6 optional fractional digits. */
const isOffsetTimestamp: FieldRule = (value) => parseTimestamp(value) !== null

export const SYNC_DATA_FIELDS: Record<string, FieldRule> = {
  merchant_transaction_id: isString(PAYLOAD_REFERENCE_PATTERN),
  amount: isString(AMOUNT_PATTERN),
  payment_status: WEBHOOK_FIELDS.payment_status,
  is_card_payment: isBoolean,
  timestamp: isOffsetTimestamp,
}

/** Field names that look like links: excluded with their own reason. */
export const URL_LIKE = /url|uri|link|redirect|callback/i
