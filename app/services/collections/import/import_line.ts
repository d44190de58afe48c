/*
| One line of the collections import (docs/import-format.md; decisions.md §5), parsed and checked strictly
| before anything of it is written. Pure: the currency catalogue comes in as a set, and
| merchant existence is checked by the caller (it needs the database).
|
| Rules beyond the example of §5, written down in docs/import-format.md:
| - every key of the transaction example is required (null where §5 says it may be
|   null); `credited` (boolean, default false) is accepted for the table's flag;
|   any other key is rejected by name, `__proto__` included;
| - `amount` is a nonnegative decimal string with exactly two fractional digits and
|   at most 12 integer digits (numeric(14,2)); never a JSON number;
| - timestamps follow the collections grammar (app/validators/rules/timestamp.ts,
|   parseTimestamp, no luxon per value), fall in UTC years 0001-9999 once their offset
|   is applied, and are stored exactly as given (microseconds kept);
| - event bounds are those of the History item table (event_id, attempt_number,
|   http_status, delivery state, duration_ms; history/projection.ts), checked in
|   import_event.ts; `body` and `body_text` are exclusive, `"body": null` means no
|   body, and a purged event carries no body;
| - text that PostgreSQL cannot store (NUL) or that would make a record ambiguous
|   (control characters in identifiers) is rejected.
|
| Checked by hand (line_fields.ts), not by a VineJS validator: it runs synchronously
| once per line on the preparation thread, stops at the first fault and words its
| messages for the file; each rule it applies is the shared definition (the vocabulary,
| the timestamp grammar, character counts, route ids, the History item's tables).
*/
import { isPlainObject } from '#support/plain_object'
import {
  AMOUNT_PATTERN,
  CURRENCY_CODE_PATTERN,
  ENVIRONMENTS,
  type Environment,
} from '#models/collections_vocabulary'
import { eventBodyTextsOf } from '#services/collections/import/event_body_text'
import { parseEvent } from '#services/collections/import/import_event'
import type { ImportedTransaction } from '#services/collections/import/imported_records'
import {
  describe,
  optionalBoolean,
  text,
  timestamp,
  type Fail,
} from '#services/collections/import/line_fields'

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
