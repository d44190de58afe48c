/*
| One event of an import line (import_line.ts), checked against the History item's
| tables (history/projection.ts) and the evidence kinds; an event given without an id
| gets one derived from what it is (derived_event_id.ts).
*/
import { isPlainObject } from '#support/plain_object'
import { routeIds } from '#validators/rules/route_ids'
import {
  ATTEMPT_NUMBER_RANGE,
  DELIVERY_STATES,
  DURATION_MS_RANGE,
  EVENT_ID_PATTERN,
  HTTP_STATUS_RANGE,
  REPLY_BODY_CAPTURE_STATUSES,
  SYNC_BODY_CAPTURE_STATUSES,
} from '#models/collections_vocabulary'
import { isEvidenceKind, KIND_DEFINITIONS } from '#services/collections/history/evidence_kinds'
import type {
  ImportedEvent,
  ImportedTransaction,
} from '#services/collections/import/imported_records'
import { derivedEventId } from '#services/collections/import/derived_event_id'
import {
  describe,
  integer,
  LONE_SURROGATE,
  NOT_TEXT,
  oneOf,
  optionalBoolean,
  text,
  timestamp,
  type Fail,
} from '#services/collections/import/line_fields'

const REQUIRED_EVENT_KEYS = ['kind', 'captured_at', 'schema_version', 'capture_format']
const EVENT_KEYS = new Set([
  ...REQUIRED_EVENT_KEYS,
  'id',
  'body',
  'body_text',
  'content_type',
  'body_capture_status',
  'event_id',
  'attempt_number',
  'http_status',
  'delivery_state',
  'duration_ms',
  'is_repeated_request',
  'retain_until',
  'legal_hold',
  'purged_at',
])

const CAPTURE_FORMAT = /^[a-z0-9_]{1,64}$/

export function parseEvent(
  fail: Fail,
  transaction: ImportedTransaction,
  position: number,
  raw: unknown,
  /** The line's own text of this event's `body` (event_body_text.ts). */
  bodyText: () => string | undefined
): ImportedEvent {
  const at = `events[${position}]`
  if (!isPlainObject(raw)) fail(`${at} must be an object, got ${describe(raw)}`)
  for (const key of Object.keys(raw)) {
    if (!EVENT_KEYS.has(key)) fail(`${at}.${key} is not a field of an event`)
  }
  for (const key of REQUIRED_EVENT_KEYS) {
    if (!Object.hasOwn(raw, key)) fail(`${at}.${key} is required`)
  }
  if (!isEvidenceKind(raw.kind)) {
    fail(`${at}.kind must be one of ${Object.keys(KIND_DEFINITIONS).join(', ')}`)
  }
  const kind = raw.kind
  const capturedAt = timestamp(fail, `${at}.captured_at`, raw.captured_at, false)!
  const schemaVersion = integer(fail, `${at}.schema_version`, raw.schema_version, {
    min: 1,
    max: 32_767,
  })
  if (schemaVersion === null) fail(`${at}.schema_version must be an integer from 1 to 32767`)
  const captureFormat = raw.capture_format
  if (typeof captureFormat !== 'string' || !CAPTURE_FORMAT.test(captureFormat)) {
    fail(`${at}.capture_format must be 1-64 lowercase letters, digits or underscores`)
  }

  let id: string
  if (raw.id === undefined) {
    id = derivedEventId(transaction, position, kind, capturedAt)
  } else {
    if (typeof raw.id !== 'string' || !routeIds.ulid.match.test(raw.id)) {
      fail(`${at}.id must be a 26-character uppercase ULID`)
    }
    id = raw.id
  }

  const purgedAt =
    raw.purged_at === undefined ? null : timestamp(fail, `${at}.purged_at`, raw.purged_at, true)
  let snapshot: ImportedEvent['snapshot'] = null
  const hasBody = raw.body !== undefined && raw.body !== null
  const hasText = raw.body_text !== undefined && raw.body_text !== null
  if (hasBody && hasText) fail(`${at} must not carry both body and body_text`)
  if ((hasBody || hasText) && purgedAt) fail(`${at} is purged (purged_at) and must carry no body`)
  // Stored exactly as given (decisions.md §5): the characters of the line.
  if (hasBody) snapshot = { kind: 'json', text: bodyText()!, parsed: { value: raw.body } }
  if (hasText) {
    if (typeof raw.body_text !== 'string') fail(`${at}.body_text must be a string or null`)
    if (LONE_SURROGATE.test(raw.body_text)) fail(`${at}.body_text ${NOT_TEXT}`)
    snapshot = { kind: 'text', text: raw.body_text }
  }

  const bodyCaptureStatus = oneOf(
    fail,
    `${at}.body_capture_status`,
    raw.body_capture_status,
    kind === 'merchant_response.synchronous'
      ? SYNC_BODY_CAPTURE_STATUSES
      : REPLY_BODY_CAPTURE_STATUSES
  )
  let eventId: string | null = null
  if (raw.event_id !== undefined && raw.event_id !== null) {
    if (typeof raw.event_id !== 'string' || !EVENT_ID_PATTERN.test(raw.event_id)) {
      fail(`${at}.event_id must be 1-128 ASCII letters, digits, underscores or hyphens, or null`)
    }
    eventId = raw.event_id
  }
  const retainUntil =
    raw.retain_until === undefined || raw.retain_until === null
      ? null
      : timestamp(fail, `${at}.retain_until`, raw.retain_until, false)

  const definition = KIND_DEFINITIONS[kind]
  return {
    id,
    kind,
    source: definition.source,
    direction: definition.direction,
    capturedAt,
    captureFormat,
    schemaVersion,
    snapshot,
    contentType: text(fail, `${at}.content_type`, raw.content_type ?? null, {
      max: 255,
      nullable: true,
    }),
    bodyCaptureStatus,
    eventId,
    attemptNumber: integer(fail, `${at}.attempt_number`, raw.attempt_number, ATTEMPT_NUMBER_RANGE),
    httpStatus: integer(fail, `${at}.http_status`, raw.http_status, HTTP_STATUS_RANGE),
    deliveryState: oneOf(fail, `${at}.delivery_state`, raw.delivery_state, DELIVERY_STATES),
    durationMs: integer(fail, `${at}.duration_ms`, raw.duration_ms, DURATION_MS_RANGE),
    isRepeatedRequest: optionalBoolean(
      fail,
      `${at}.is_repeated_request`,
      raw.is_repeated_request,
      null
    ),
    retainUntil,
    legalHold: optionalBoolean(fail, `${at}.legal_hold`, raw.legal_hold, false)!,
    purgedAt,
  }
}
