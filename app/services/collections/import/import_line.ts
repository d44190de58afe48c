/*
| One line of the collections import (decisions.md §5), parsed and checked strictly
| before anything of it is written. Pure: the currency catalogue comes in as a set, and
| merchant existence is checked by the caller (it needs the database).
|
| Rules beyond the example of §5, written down in docs/collections-operations.md:
| - every key of the transaction example is required (null where §5 says it may be
|   null); `credited` (boolean, default false) is accepted for the table's flag;
|   any other key is rejected by name, `__proto__` included;
| - `amount` is a nonnegative decimal string with exactly two fractional digits and
|   at most 12 integer digits (numeric(14,2)); never a JSON number;
| - timestamps follow the collections grammar (app/validators/rules/timestamp.ts,
|   parseTimestamp, no luxon per value), fall in UTC years 0001-9999 once their offset
|   is applied, and are stored exactly as given (microseconds kept);
| - event bounds are those of the History item table (event_id, attempt_number,
|   http_status, delivery state, duration_ms); `body` and `body_text` are exclusive,
|   `"body": null` means no body, and a purged event carries no body;
| - text that PostgreSQL cannot store (NUL) or that would make a record ambiguous
|   (control characters in identifiers) is rejected.
*/
import { createHash } from 'node:crypto'
import { parseTimestamp, type Timestamp } from '#validators/rules/timestamp'
import { characters } from '#validators/rules/text_length'
import { isPlainObject } from '#support/plain_object'
import {
  AMOUNT_PATTERN,
  CURRENCY_CODE_PATTERN,
  DELIVERY_STATES,
  ENVIRONMENTS,
  type Environment,
} from '#models/collections_vocabulary'
import { eventBodyTextsOf } from '#services/collections/import/event_body_text'
import {
  REPLY_BODY_CAPTURE_STATUSES,
  SYNC_BODY_CAPTURE_STATUSES,
  type OpenedSnapshot,
} from '#services/collections/history/projection'
import {
  isEvidenceKind,
  KIND_DEFINITIONS,
  type EvidenceKind,
} from '#services/collections/history/evidence_kinds'

/** A line that breaks the format. The message names the line and the field. */
export class ImportLineError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string
  ) {
    super(`line ${line}: ${reason}`)
    this.name = 'ImportLineError'
  }
}

/** Events on one line: a bound so that one line cannot hold a whole history. */
export const MAX_EVENTS_PER_LINE = 10_000

const TRANSACTION_KEYS = new Set([
  'merchant_id',
  'environment',
  'merchant_transaction_id',
  'amount',
  'currency',
  'payment_status',
  'legacy_status',
  'payment_brand',
  'archived',
  'created_at',
  'updated_at',
  'events',
])
const OPTIONAL_TRANSACTION_KEYS = new Set(['credited'])
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

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/
const EVENT_ID = /^[A-Za-z0-9_-]{1,128}$/
const CAPTURE_FORMAT = /^[a-z0-9_]{1,64}$/
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/

export interface ImportedEvent {
  id: string
  kind: EvidenceKind
  source: string
  direction: string
  capturedAt: Timestamp
  captureFormat: string
  schemaVersion: number
  /** The snapshot to seal (and project), or null when the event carries no body. */
  snapshot: OpenedSnapshot | null
  contentType: string | null
  bodyCaptureStatus: string | null
  eventId: string | null
  attemptNumber: number | null
  httpStatus: number | null
  deliveryState: string | null
  durationMs: number | null
  isRepeatedRequest: boolean | null
  /** null: captured_at + the retention period, computed when stored. */
  retainUntil: Timestamp | null
  legalHold: boolean
  purgedAt: Timestamp | null
}

export interface ImportedTransaction {
  merchantId: number
  environment: Environment
  merchantTransactionId: string
  amount: string | null
  currency: string
  paymentStatus: string | null
  legacyStatus: string | null
  paymentBrand: string
  archived: boolean
  credited: boolean
  createdAt: Timestamp | null
  updatedAt: Timestamp | null
  events: ImportedEvent[]
}

type Fail = (reason: string) => never

const describe = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`

const LONE_SURROGATE = /\p{Cs}/u
const NOT_TEXT = 'must not contain a lone UTF-16 surrogate (\\ud800-\\udfff without its pair)'

function text(
  fail: Fail,
  field: string,
  value: unknown,
  options: { max: number; nullable?: boolean; controls?: boolean }
): string | null {
  if (value === null && options.nullable) return null
  if (typeof value !== 'string') {
    fail(`${field} must be a string${options.nullable ? ' or null' : ''}, got ${describe(value)}`)
  }
  if (value.length === 0) fail(`${field} must not be empty${options.nullable ? ' (use null)' : ''}`)
  // Characters (code points), as varchar(n) counts them; UTF-16 length bounds them above.
  if (value.length > options.max && characters(value) > options.max) {
    fail(`${field} must be at most ${options.max} characters`)
  }
  if (value.includes('\u0000')) fail(`${field} must not contain NUL characters`)
  // PostgreSQL would store a lone surrogate as U+FFFD: two different references would
  // become one transaction.
  if (LONE_SURROGATE.test(value)) fail(`${field} ${NOT_TEXT}`)
  if (!options.controls && CONTROL.test(value)) fail(`${field} must not contain control characters`)
  return value
}

function integer(
  fail: Fail,
  field: string,
  value: unknown,
  min: number,
  max: number
): number | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(`${field} must be an integer from ${min} to ${max} or null`)
  }
  return value
}

/**
 * The instants the API can print: resource timestamps are RFC 3339 in UTC, which has
 * four-digit years 0001-9999 and no era. A value inside the grammar can still leave
 * them once its offset is applied (`0001-01-01T00:00:00+14:00` is 1 BC in UTC,
 * `9999-12-31T23:59:59.999999-14:00` is year 10000), and PostgreSQL would store it.
 */
const FIRST_UTC_MICROS = BigInt(Date.parse('0001-01-01T00:00:00.000Z')) * 1000n
const LAST_UTC_MICROS = BigInt(Date.parse('9999-12-31T23:59:59.999Z')) * 1000n + 999n

function timestamp(fail: Fail, field: string, value: unknown, nullable: boolean) {
  if (value === null && nullable) return null
  const parsed = parseTimestamp(value)
  if (!parsed) {
    fail(
      `${field} must be a timestamp such as 2026-03-01T10:00:00.120+08:00` +
        `${nullable ? ' or null' : ''} (explicit offset up to ±14:00, real date)`
    )
  }
  if (parsed.epochMicros < FIRST_UTC_MICROS || parsed.epochMicros > LAST_UTC_MICROS) {
    fail(
      `${field} must be an instant from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z ` +
        '(UTC years 0001-9999) once its offset is applied'
    )
  }
  return parsed
}

function optionalBoolean(fail: Fail, field: string, value: unknown, fallback: boolean | null) {
  if (value === undefined) return fallback
  if (value === null && fallback === null) return null
  if (typeof value !== 'boolean') {
    fail(`${field} must be a boolean${fallback === null ? ' or null' : ''}`)
  }
  return value
}

function oneOf(fail: Fail, field: string, value: unknown, allowed: readonly string[]) {
  if (value === null || value === undefined) return null
  if (typeof value !== 'string' || !allowed.includes(value)) {
    fail(`${field} must be one of ${allowed.join(', ')} or null`)
  }
  return value
}

/**
 * An id for an event given without one: a ULID whose time is `captured_at` and whose
 * randomness is a hash of the transaction key, the event's position and what it is,
 * so that importing the same file again finds the same event instead of a copy.
 */
export function derivedEventId(
  transaction: Pick<ImportedTransaction, 'merchantId' | 'environment' | 'merchantTransactionId'>,
  position: number,
  kind: string,
  capturedAt: Timestamp
): string {
  const digest = createHash('sha256')
    .update(
      JSON.stringify([
        transaction.merchantId,
        transaction.environment,
        transaction.merchantTransactionId,
        position,
        kind,
        capturedAt.sql,
      ])
    )
    .digest()
  const millis = Number(capturedAt.epochMicros / 1000n)
  return encodeUlid(Math.max(0, millis), digest.subarray(0, 10))
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/** 48-bit milliseconds + 80 bits of `entropy` in Crockford base32 (26 characters). */
export function encodeUlid(millis: number, entropy: Uint8Array): string {
  let time = ''
  let rest = Math.min(millis, 2 ** 48 - 1)
  for (let index = 0; index < 10; index++) {
    time = CROCKFORD[rest % 32] + time
    rest = Math.floor(rest / 32)
  }
  // 80 bits = 16 groups of 5, read from the first 10 bytes, most significant first.
  let random = ''
  let buffer = 0
  let bits = 0
  for (let index = 0; index < 10; index++) {
    buffer = (buffer << 8) | entropy[index]
    bits += 8
    while (bits >= 5) {
      bits -= 5
      random += CROCKFORD[(buffer >> bits) & 31]
    }
    buffer &= (1 << bits) - 1
  }
  return time + random
}

function parseEvent(
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
  const schemaVersion = integer(fail, `${at}.schema_version`, raw.schema_version, 1, 32_767)
  if (schemaVersion === null) fail(`${at}.schema_version must be an integer from 1 to 32767`)
  const captureFormat = raw.capture_format
  if (typeof captureFormat !== 'string' || !CAPTURE_FORMAT.test(captureFormat)) {
    fail(`${at}.capture_format must be 1-64 lowercase letters, digits or underscores`)
  }

  let id: string
  if (raw.id === undefined) {
    id = derivedEventId(transaction, position, kind, capturedAt)
  } else {
    if (typeof raw.id !== 'string' || !ULID.test(raw.id)) {
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
    if (typeof raw.event_id !== 'string' || !EVENT_ID.test(raw.event_id)) {
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
    attemptNumber: integer(fail, `${at}.attempt_number`, raw.attempt_number, 1, 1_000_000),
    httpStatus: integer(fail, `${at}.http_status`, raw.http_status, 100, 599),
    deliveryState: oneOf(fail, `${at}.delivery_state`, raw.delivery_state, DELIVERY_STATES),
    durationMs: integer(fail, `${at}.duration_ms`, raw.duration_ms, 0, 86_400_000),
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

/** Parses and checks one line; throws ImportLineError naming the line. */
export function parseImportLine(
  line: number,
  source: string,
  currencies: ReadonlySet<string>
): ImportedTransaction {
  const fail: Fail = (reason) => {
    throw new ImportLineError(line, reason)
  }
  let raw: unknown
  try {
    raw = JSON.parse(source)
  } catch {
    fail('not valid JSON')
  }
  if (!isPlainObject(raw)) fail(`a line must be a JSON object, got ${describe(raw)}`)
  for (const key of Object.keys(raw)) {
    if (!TRANSACTION_KEYS.has(key) && !OPTIONAL_TRANSACTION_KEYS.has(key)) {
      fail(`${key} is not a field of a transaction`)
    }
  }
  for (const key of TRANSACTION_KEYS) {
    if (!Object.hasOwn(raw, key)) fail(`${key} is required`)
  }

  const merchantId = raw.merchant_id
  if (typeof merchantId !== 'number' || !Number.isSafeInteger(merchantId) || merchantId < 1) {
    fail('merchant_id must be a positive integer')
  }
  if (!ENVIRONMENTS.includes(raw.environment as Environment)) {
    fail(`environment must be one of ${ENVIRONMENTS.join(', ')}`)
  }
  const merchantTransactionId = text(fail, 'merchant_transaction_id', raw.merchant_transaction_id, {
    max: 100,
  })!
  let amount: string | null = null
  if (raw.amount !== null) {
    if (typeof raw.amount !== 'string' || !AMOUNT_PATTERN.test(raw.amount)) {
      fail(
        'amount must be a decimal string with two fractional digits and at most 12 integer ' +
          'digits, such as "1500.00", or null'
      )
    }
    amount = raw.amount
  }
  if (typeof raw.currency !== 'string' || !CURRENCY_CODE_PATTERN.test(raw.currency)) {
    fail('currency must be three uppercase letters')
  }
  if (!currencies.has(raw.currency)) fail(`currency ${raw.currency} is not in the catalogue`)
  if (typeof raw.archived !== 'boolean') fail('archived must be a boolean')
  if (!Array.isArray(raw.events)) fail('events must be an array')
  if (raw.events.length > MAX_EVENTS_PER_LINE) {
    fail(`events must hold at most ${MAX_EVENTS_PER_LINE} events`)
  }

  const transaction: ImportedTransaction = {
    merchantId,
    environment: raw.environment as Environment,
    merchantTransactionId,
    amount,
    currency: raw.currency,
    paymentStatus: text(fail, 'payment_status', raw.payment_status, { max: 32, nullable: true }),
    legacyStatus: text(fail, 'legacy_status', raw.legacy_status, { max: 32, nullable: true }),
    paymentBrand: text(fail, 'payment_brand', raw.payment_brand, { max: 100 })!,
    archived: raw.archived,
    credited: optionalBoolean(fail, 'credited', raw.credited, false)!,
    createdAt: timestamp(fail, 'created_at', raw.created_at, true),
    updatedAt: timestamp(fail, 'updated_at', raw.updated_at, true),
    events: [],
  }
  const seen = new Set<string>()
  let bodyTexts: Array<string | undefined> | undefined
  for (const [position, event] of raw.events.entries()) {
    const bodyText = () => (bodyTexts ??= eventBodyTextsOf(source, raw))[position]
    const parsed = parseEvent(fail, transaction, position, event, bodyText)
    if (seen.has(parsed.id)) fail(`events[${position}].id ${parsed.id} appears twice on the line`)
    seen.add(parsed.id)
    transaction.events.push(parsed)
  }
  return transaction
}
