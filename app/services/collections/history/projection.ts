/*
| The Portal's view of one piece of exchange evidence (portal-api.md › History item,
| Payload projection, Collections › "History behavior"; decisions.md §5). Pure: no
| database, no HTTP, no decryption.
|
| It runs when evidence is written (the import, `history:reproject`), not when it is
| read: `projectSnapshot()` turns an opened snapshot into the body-dependent part of
| the item (`StoredProjection`), which is sealed and stored beside the snapshot. A
| read builds the item with `historyItemOf()` from the row's columns and that stored
| part, so its cost never depends on the size of the captured bodies.
|
| Rules kept here, once:
| - fixed allowlists per payload kind; every other field is excluded and reported in
|   `omissions` with a reason code, never with its value, and never with its name
|   either: a path names an allowlisted field, or `*` ("fields not on the allowlist")
|   at its level (`*`, `data.*`), since a key chosen by the sender can carry data;
| - whole bodies are withheld rather than cut (never truncated): purged, legacy,
|   unsupported schema, over the 2 MiB read bound, unreadable, not captured;
| - JSON response bodies are decoded up to 256 KiB and depth 64; request bodies are
|   bounded by the same depth (their size by the read bound);
| - nothing is filled in from elsewhere: an absent field stays absent.
|
| Bump PROJECTION_VERSION whenever what a snapshot projects to changes (an allowlist,
| a rule, a reason): `node ace history:reproject` then re-projects the stored rows.
*/
import {
  KIND_DEFINITIONS,
  type EvidenceKind,
  type HistoryEventType,
} from '#services/collections/history/evidence_kinds'
import { parseTimestamp } from '#validators/rules/timestamp'
import { isPlainObject } from '#support/plain_object'
import {
  AMOUNT_PATTERN,
  CURRENCY_CODE_PATTERN,
  DELIVERY_STATES,
  TRANSACTION_STATUSES,
  type DeliveryState,
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
 * The version of the rules below that a stored projection was made with. Rows
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
type ReplyBodyCaptureStatus = (typeof REPLY_BODY_CAPTURE_STATUSES)[number]
/** Body capture states of the service's synchronous responses: the reply ones and four more. */
export const SYNC_BODY_CAPTURE_STATUSES = [
  ...REPLY_BODY_CAPTURE_STATUSES,
  ...SYNC_ONLY_CAPTURE_STATUSES,
] as const
export type BodyCaptureStatus = (typeof SYNC_BODY_CAPTURE_STATUSES)[number]

/** Capture states meaning no body was kept: the snapshot is never read for them. */
const BODILESS_STATUSES = new Set<string>([
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

const LEGACY_FORMAT = 'legacy_sanitized_snapshot'
const DELIVERY_ATTEMPT: EvidenceKind = 'merchant_notification.delivery_attempt'

/**
 * Whether the snapshot of `facts` is projected at all. Everything that is withheld
 * unread (purged, legacy attempts, unsupported schema, a recorded bodiless capture,
 * nothing stored, over the read bound) is decided here from the row's columns alone,
 * at write time and again at read time; only readable snapshots have a stored
 * projection.
 */
export function snapshotReadable(facts: EvidenceFacts): boolean {
  return unreadReason(facts) === null
}

type UnreadOutcome = { status: CaptureStatus; reason: ReasonCode | null }

function unreadReason(record: EvidenceFacts): UnreadOutcome | null {
  if (record.purgedAt !== null) return { status: 'purged', reason: null }
  if (record.kind === DELIVERY_ATTEMPT) {
    return { status: 'omitted', reason: 'legacy_body_unverified' }
  }
  const recorded = recordedBodyStatus(record)
  if (recorded !== null && BODILESS_STATUSES.has(recorded)) {
    return {
      status: recorded === 'no_response' ? 'unavailable' : 'omitted',
      reason: recorded as ReasonCode,
    }
  }
  if (!record.hasSnapshot) {
    // A size recorded without the bytes: the snapshot went missing after capture.
    return record.snapshotSize === null
      ? { status: 'unavailable', reason: 'body_not_captured' }
      : { status: 'unavailable', reason: 'snapshot_unavailable' }
  }
  if (record.schemaVersion === null || !SUPPORTED_SCHEMA_VERSIONS.has(record.schemaVersion)) {
    return { status: 'unavailable', reason: 'snapshot_schema_unsupported' }
  }
  if (record.snapshotSize === null || record.snapshotSize > READ_BOUND_BYTES) {
    return { status: 'unavailable', reason: 'snapshot_limit_exceeded' }
  }
  return null
}

/** The recorded body capture state when it is one the item's kind can carry, else null. */
function recordedBodyStatus(record: EvidenceFacts): BodyCaptureStatus | null {
  const value = record.bodyCaptureStatus
  if (value === null) return null
  const allowed: readonly string[] =
    record.kind === 'merchant_response.synchronous'
      ? SYNC_BODY_CAPTURE_STATUSES
      : REPLY_BODY_CAPTURE_STATUSES
  return allowed.includes(value) ? (value as BodyCaptureStatus) : null
}

interface BodyProjection {
  status: CaptureStatus
  payload: Payload | null
  omissions: Omission[]
  bodyCaptureStatus: BodyCaptureStatus | null
}

/**
 * The projection to store for a readable snapshot (`snapshotReadable(facts)`), given
 * the opened snapshot, or null when it could not be opened (then the stored
 * projection says `snapshot_unreadable`). Null when the snapshot is not readable:
 * nothing is stored, a read decides from the columns.
 */
export function projectSnapshot(
  facts: EvidenceFacts,
  snapshot: OpenedSnapshot | null
): StoredProjection | null {
  if (!snapshotReadable(facts)) return null
  return storedPartOf(facts, projectBody(facts, snapshot))
}

/**
 * The history item of a row read from the database: withheld from its columns when
 * its snapshot is not readable, else built from its stored projection.
 */
export function historyItemOf(record: EvidenceRecord, stored: StoredProjectionRead): HistoryItem {
  const shownAs = KIND_DEFINITIONS[record.kind].shownAs
  if (!shownAs) throw new Error(`evidence kind ${record.kind} is never shown`)
  let part: StoredProjection
  const unread = unreadReason(record)
  if (unread) {
    part = storedPartOf(record, {
      status: unread.status,
      payload: null,
      omissions: unread.reason ? [{ field_path: 'body', reason_code: unread.reason }] : [],
      bodyCaptureStatus: recordedBodyStatus(record),
    })
  } else if (stored === 'missing') {
    part = storedPartOf(
      record,
      withheld('unavailable', 'snapshot_unavailable', recordedBodyStatus(record))
    )
  } else if (stored === 'unreadable') {
    part = storedPartOf(
      record,
      withheld('unavailable', 'snapshot_unreadable', recordedBodyStatus(record))
    )
  } else {
    part = stored
  }
  return {
    id: record.id,
    transaction_id: record.transactionId,
    environment: record.environment,
    event_type: shownAs.eventType,
    direction: shownAs.direction,
    captured_at: record.capturedAt,
    capture_format: record.kind === DELIVERY_ATTEMPT ? LEGACY_FORMAT : record.captureFormat,
    capture_status: part.capture_status,
    event_id: eventIdOf(record.eventId),
    attempt_number: integerIn(record.attemptNumber, 1, 1_000_000),
    http_status: integerIn(record.httpStatus, 100, 599),
    delivery: part.delivery,
    response: part.response,
    payload: part.payload,
    omissions: part.omissions,
    retain_until: record.retainUntil,
    purged_at: record.purgedAt,
  }
}

/**
 * Write time and read time in one call (the unit tests' view): the item `record`
 * shows once `snapshot` (opened, or null when it could not be) has been projected.
 * `snapshot` is ignored when the record is not readable.
 */
export function projectEvidence(
  record: EvidenceRecord,
  snapshot: OpenedSnapshot | null | undefined
): HistoryItem {
  return historyItemOf(record, projectSnapshot(record, snapshot ?? null) ?? 'missing')
}

function storedPartOf(facts: EvidenceFacts, body: BodyProjection): StoredProjection {
  return {
    capture_status: body.status,
    payload: body.payload,
    omissions: body.omissions,
    delivery: deliveryOf(facts, body),
    response:
      facts.kind === 'merchant_response.synchronous'
        ? {
            is_repeated_request: facts.isRepeatedRequest === true,
            capture_stage: 'prepared_for_return',
            body_capture_status: body.bodyCaptureStatus,
          }
        : null,
  }
}

/** The body of a readable snapshot, by payload kind (null: it could not be opened). */
function projectBody(facts: EvidenceFacts, snapshot: OpenedSnapshot | null): BodyProjection {
  if (!snapshot) return withheld('unavailable', 'snapshot_unreadable', recordedBodyStatus(facts))
  switch (facts.kind) {
    case 'merchant_request.validated':
      return projectRequest(snapshot, REQUEST_FIELDS)
    case 'merchant_notification.queued':
      return projectRequest(snapshot, WEBHOOK_FIELDS)
    case 'merchant_response.synchronous':
      return projectSynchronousResponse(snapshot)
    case 'merchant_notification.response':
      return projectReply(snapshot, facts.contentType)
    default:
      // Unreachable: delivery attempts are never read, other kinds never shown.
      return withheld('unavailable', 'snapshot_schema_unsupported', null)
  }
}

function withheld(
  status: CaptureStatus,
  reason: ReasonCode,
  bodyCaptureStatus: BodyCaptureStatus | null
): BodyProjection {
  return {
    status,
    payload: null,
    omissions: [{ field_path: 'body', reason_code: reason }],
    bodyCaptureStatus,
  }
}

// ---------------------------------------------------------------------------------
// Field rules of the allowlists

type FieldRule = (value: unknown) => boolean

const REFERENCE = /^[A-Za-z0-9_-]{1,100}$/
const BRAND = /^[A-Za-z0-9_-]{1,20}$/
const PAYMENT_STATUSES = new Set<string>(TRANSACTION_STATUSES)

const isString =
  (pattern: RegExp): FieldRule =>
  (value) =>
    typeof value === 'string' && pattern.test(value)
const isBoolean: FieldRule = (value) => typeof value === 'boolean'

const WEBHOOK_FIELDS: Record<string, FieldRule> = {
  merchant_transaction_id: isString(REFERENCE),
  payment_brand: isString(BRAND),
  currency: isString(CURRENCY_CODE_PATTERN),
  amount: isString(AMOUNT_PATTERN),
  payment_status: (value) => typeof value === 'string' && PAYMENT_STATUSES.has(value),
}

const REQUEST_FIELDS: Record<string, FieldRule> = {
  ...WEBHOOK_FIELDS,
  channel: (value) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 4,
  is_card_payment: isBoolean,
}

// The value allowlists below are exported: the response shapes
// (app/shapes/collections.ts) are built from them, never restated.
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

const REPLY_STATUSES = new Set<string>(REPLY_STATUS_VALUES)
const REPLY_TEXTS = new Set<string>(REPLY_TEXT_VALUES)
const SYNC_ERROR_CODES = new Set<string>(SYNC_ERROR_CODE_VALUES)

/** Explicit offset or Z, a valid date, 1-6 optional fractional digits. */
const isOffsetTimestamp: FieldRule = (value) => parseTimestamp(value) !== null

const SYNC_DATA_FIELDS: Record<string, FieldRule> = {
  merchant_transaction_id: isString(REFERENCE),
  amount: isString(AMOUNT_PATTERN),
  payment_status: WEBHOOK_FIELDS.payment_status,
  is_card_payment: isBoolean,
  timestamp: isOffsetTimestamp,
}

/** Field names that look like links: excluded with their own reason. */
const URL_LIKE = /url|uri|link|redirect|callback/i

// ---------------------------------------------------------------------------------
// Decoding

type Decoded = { ok: true; value: unknown } | { ok: false; why: 'oversize' | 'deep' | 'invalid' }

/**
 * JSON text to a value within the bounds. The nesting depth is measured on the text
 * before parsing, so a hostile body never builds a deep structure.
 */
export function decodeJson(
  text: string,
  maxBytes: number | null,
  parsed?: { value: unknown }
): Decoded {
  if (maxBytes !== null && Buffer.byteLength(text) > maxBytes) return { ok: false, why: 'oversize' }
  if (nestingDepth(text) > DECODE_DEPTH_BOUND) return { ok: false, why: 'deep' }
  if (parsed) return { ok: true, value: parsed.value }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false, why: 'invalid' }
  }
}

/** Deepest `[`/`{` nesting outside string literals. */
export function nestingDepth(text: string): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index)
    if (inString) {
      if (char === 0x5c)
        index++ // backslash: skip the escaped character
      else if (char === 0x22) inString = false
    } else if (char === 0x22) {
      inString = true
    } else if (char === 0x5b || char === 0x7b) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (char === 0x5d || char === 0x7d) {
      depth--
    }
  }
  return deepest
}

// ---------------------------------------------------------------------------------
// Omissions

/**
 * The omissions of one item, each (path, reason) once, in order of first appearance.
 * Only the projection's own vocabulary becomes a path: the allowlisted names, and
 * `*` for the fields at a level that are not on its allowlist.
 */
class OmissionList {
  private readonly entries = new Map<string, Omission>()

  /** An allowlisted field (or `body`, `data`) whose value was not shown. */
  addField(fieldPath: string, reason: ReasonCode) {
    const key = `${fieldPath}\u0000${reason}`
    if (!this.entries.has(key))
      this.entries.set(key, { field_path: fieldPath, reason_code: reason })
  }

  /** A field not on the allowlist of the level `path` ('' for the top): never named. */
  addUnlisted(path: string, reason: ReasonCode) {
    this.addField(path ? `${path}.${UNLISTED_FIELDS}` : UNLISTED_FIELDS, reason)
  }

  get size() {
    return this.entries.size
  }

  toArray(): Omission[] {
    return [...this.entries.values()]
  }
}

/**
 * Copies the allowed fields of `source` that pass their rule into a new object
 * (allowlist order). An allowed field failing its rule is omitted by name under
 * `reason`; every other field is omitted as `*` of its level, under
 * `payment_url_excluded` when its name looks like a link, else under `reason`. Own
 * properties only, so `__proto__` or `constructor` keys are plain unlisted fields.
 */
function pickAllowed(
  source: Record<string, unknown>,
  rules: Record<string, FieldRule>,
  reason: ReasonCode,
  omissions: OmissionList,
  path = ''
): Payload {
  const picked: Payload = {}
  for (const [name, rule] of Object.entries(rules)) {
    if (!Object.hasOwn(source, name)) continue
    if (rule(source[name])) picked[name] = source[name]
    else omissions.addField(path ? `${path}.${name}` : name, reason)
  }
  for (const name of Object.keys(source)) {
    if (Object.hasOwn(rules, name)) continue
    omissions.addUnlisted(path, URL_LIKE.test(name) ? 'payment_url_excluded' : reason)
  }
  return picked
}

// ---------------------------------------------------------------------------------
// Per payload kind

/** Validated merchant request and queued webhook: a JSON object under a fixed allowlist. */
function projectRequest(
  snapshot: OpenedSnapshot,
  rules: Record<string, FieldRule>
): BodyProjection {
  if (snapshot.kind !== 'json') return withheld('unavailable', 'snapshot_unreadable', null)
  const decoded = decodeJson(snapshot.text, null, snapshot.parsed)
  if (!decoded.ok) {
    return decoded.why === 'deep'
      ? withheld('unavailable', 'snapshot_limit_exceeded', null)
      : withheld('unavailable', 'snapshot_unreadable', null)
  }
  // The service validated these as JSON objects; anything else is not its capture.
  if (!isPlainObject(decoded.value)) return withheld('unavailable', 'snapshot_unreadable', null)
  const omissions = new OmissionList()
  const payload = pickAllowed(decoded.value, rules, 'portal_field_allowlist', omissions)
  return { status: 'available', payload, omissions: omissions.toArray(), bodyCaptureStatus: null }
}

/** The service's synchronous response: `success`, `error_code`, and five `data` fields. */
function projectSynchronousResponse(snapshot: OpenedSnapshot): BodyProjection {
  if (snapshot.kind !== 'json') return withheld('omitted', 'omitted_non_json', 'omitted_non_json')
  const decoded = decodeJson(snapshot.text, RESPONSE_DECODE_BOUND_BYTES, snapshot.parsed)
  if (!decoded.ok) {
    if (decoded.why === 'oversize')
      return withheld('omitted', 'omitted_oversize', 'omitted_oversize')
    if (decoded.why === 'deep') {
      return withheld('omitted', 'omitted_unsupported_shape', 'omitted_unsupported_shape')
    }
    return withheld('omitted', 'omitted_invalid_json', 'omitted_invalid_json')
  }
  const body = decoded.value
  if (!isPlainObject(body)) {
    return withheld('omitted', 'omitted_unsupported_shape', 'omitted_unsupported_shape')
  }
  const omissions = new OmissionList()
  const payload: Payload = {}
  if (Object.hasOwn(body, 'success')) {
    if (isBoolean(body.success)) payload.success = body.success
    else omissions.addField('success', 'response_fields_excluded')
  }
  if (Object.hasOwn(body, 'error_code')) {
    const code = body.error_code
    if (typeof code === 'string' && SYNC_ERROR_CODES.has(code)) payload.error_code = code
    else omissions.addField('error_code', 'response_fields_excluded')
  }
  if (Object.hasOwn(body, 'data')) {
    if (isPlainObject(body.data)) {
      const data = pickAllowed(
        body.data,
        SYNC_DATA_FIELDS,
        'response_fields_excluded',
        omissions,
        'data'
      )
      if (Object.keys(data).length > 0) payload.data = data
    } else {
      omissions.addField('data', 'response_fields_excluded')
    }
  }
  for (const name of Object.keys(body)) {
    if (name === 'success' || name === 'error_code' || name === 'data') continue
    omissions.addUnlisted(
      '',
      URL_LIKE.test(name) ? 'payment_url_excluded' : 'response_fields_excluded'
    )
  }
  if (Object.keys(payload).length === 0) {
    return {
      status: 'omitted',
      payload: null,
      omissions: [
        { field_path: 'body', reason_code: 'omitted_no_permitted_fields' },
        ...omissions.toArray(),
      ],
      bodyCaptureStatus: 'omitted_no_permitted_fields',
    }
  }
  return {
    status: 'available',
    payload,
    omissions: omissions.toArray(),
    bodyCaptureStatus: omissions.size === 0 ? 'captured' : 'captured_sanitized',
  }
}

const JSON_CONTENT_TYPE = /^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

/**
 * A merchant's webhook reply: a JSON object under the reply allowlist, or a text
 * reply that is exactly one of the acknowledgement words (trimmed, lowercased),
 * shown as `{text: "<word>"}`. Text sent as JSON that did not parse is
 * `captured_invalid_json_text` and follows the text rule.
 */
function projectReply(snapshot: OpenedSnapshot, contentType: string | null): BodyProjection {
  if (snapshot.kind === 'text') {
    const invalidJson = contentType !== null && JSON_CONTENT_TYPE.test(contentType)
    return projectReplyText(snapshot.text, invalidJson)
  }
  const decoded = decodeJson(snapshot.text, RESPONSE_DECODE_BOUND_BYTES, snapshot.parsed)
  if (!decoded.ok) {
    if (decoded.why === 'invalid') return withheld('unavailable', 'snapshot_unreadable', null)
    return withheld('omitted', 'omitted_oversize', 'omitted_oversize')
  }
  const body = decoded.value
  if (!isPlainObject(body)) {
    return withheld('omitted', 'merchant_response_field_allowlist', 'captured_sanitized')
  }
  const omissions = new OmissionList()
  const payload: Payload = {}
  for (const name of REPLY_BOOLEANS) {
    if (!Object.hasOwn(body, name)) continue
    if (isBoolean(body[name])) payload[name] = body[name]
    else omissions.addField(name, 'merchant_response_field_allowlist')
  }
  if (Object.hasOwn(body, 'status')) {
    const status = body.status
    if (typeof status === 'string' && REPLY_STATUSES.has(status)) payload.status = status
    else omissions.addField('status', 'merchant_response_field_allowlist')
  }
  for (const name of Object.keys(body)) {
    if (name === 'status' || (REPLY_BOOLEANS as readonly string[]).includes(name)) continue
    omissions.addUnlisted(
      '',
      URL_LIKE.test(name) ? 'payment_url_excluded' : 'merchant_response_field_allowlist'
    )
  }
  return {
    status: 'available',
    payload,
    omissions: omissions.toArray(),
    bodyCaptureStatus: omissions.size === 0 ? 'captured' : 'captured_sanitized',
  }
}

function projectReplyText(text: string, invalidJson: boolean): BodyProjection {
  if (Buffer.byteLength(text) > RESPONSE_DECODE_BOUND_BYTES) {
    return withheld('omitted', 'omitted_oversize', 'omitted_oversize')
  }
  const word = text.trim().toLowerCase()
  if (REPLY_TEXTS.has(word)) {
    return {
      status: 'available',
      payload: { text: word },
      omissions: [],
      bodyCaptureStatus: invalidJson ? 'captured_invalid_json_text' : 'captured',
    }
  }
  return withheld(
    'omitted',
    'merchant_response_field_allowlist',
    invalidJson ? 'captured_invalid_json_text' : 'captured_sanitized'
  )
}

// ---------------------------------------------------------------------------------
// Metadata

const EVENT_ID = /^[A-Za-z0-9_-]{1,128}$/

function eventIdOf(value: string | null): string | null {
  return value !== null && EVENT_ID.test(value) ? value : null
}

function integerIn(value: number | null, min: number, max: number): number | null {
  return value !== null && Number.isInteger(value) && value >= min && value <= max ? value : null
}

function deliveryOf(record: EvidenceFacts, body: BodyProjection): HistoryItem['delivery'] {
  if (KIND_DEFINITIONS[record.kind].source !== 'merchant_webhook') return null
  const delivery: NonNullable<HistoryItem['delivery']> = {}
  const state = record.deliveryState
  if (state !== null && (DELIVERY_STATES as readonly string[]).includes(state)) {
    delivery.state = state as DeliveryState
  }
  const duration = integerIn(record.durationMs, 0, 86_400_000)
  if (duration !== null) delivery.duration_ms = duration
  if (record.kind === 'merchant_notification.response') {
    // A reply's body is never checked as JSON: its state is one of the reply states.
    delivery.body_capture_status = body.bodyCaptureStatus as ReplyBodyCaptureStatus | null
    return delivery
  }
  return Object.keys(delivery).length > 0 ? delivery : null
}

// ---------------------------------------------------------------------------------
// Coverage

/**
 * `meta.coverage` of a transaction's history from counts per shown event type:
 * `captured` when any record of the type is unpurged, `purged` when all are purged,
 * `not_captured` when there are none. (`not_applicable` is reserved, never emitted.)
 */
export function coverageOf(
  counts: Partial<Record<HistoryEventType, { total: number; unpurged: number }>>
): Record<HistoryEventType, CoverageState> {
  const coverage = {} as Record<HistoryEventType, CoverageState>
  for (const type of COVERAGE_EVENT_TYPES) {
    const count = counts[type]
    coverage[type] =
      !count || count.total === 0 ? 'not_captured' : count.unpurged > 0 ? 'captured' : 'purged'
  }
  return coverage
}

/** The shown event type of an evidence kind (null: never shown). */
export function eventTypeOf(kind: EvidenceKind): HistoryEventType | null {
  return KIND_DEFINITIONS[kind].shownAs?.eventType ?? null
}
