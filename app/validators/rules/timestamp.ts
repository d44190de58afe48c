/*
| The timestamp grammar of collection filters and reporting ranges (portal-api.md ›
| Collections): `YYYY-MM-DDTHH:mm:ss[.ffffff]` then `Z` or `±HH:MM` (offset up to
| 14:00), a real calendar date and a nonzero year. Microseconds are kept exactly
| (`epochMicros`, `sql`), since PostgreSQL compares timestamptz to the microsecond and
| a JavaScript Date would round them away. The OpenAPI pattern of these fields is
| derived from the same grammar (TIMESTAMP_PATTERN), and so is the pattern of the
| instants reporting shows (SHOWN_INSTANT_PATTERN: the same grammar, six fractional
| digits).
*/
import vine from '@vinejs/vine'
import { DateTime } from 'luxon'

/**
 * The grammar, written once for its readers: `field` wraps each part the parser
 * reads (a capture for the parser, bare in the document) and `group` opens a group.
 * `sixDigits`: the fraction is required and exactly six digits (an instant as shown).
 */
function grammar(field: (part: string) => string, group: string, sixDigits = false): string {
  const digits = (count: string) => field(`[0-9]{${count}}`)
  const date = `${digits('4')}-${digits('2')}-${digits('2')}`
  const time = `${digits('2')}:${digits('2')}:${digits('2')}`
  const fraction = sixDigits ? `\\.${digits('6')}` : `${group}\\.${digits('1,6')})?`
  const offset = `${group}Z|${field('[+-]')}${digits('2')}:${digits('2')})`
  return `^${date}T${time}${fraction}${offset}$`
}

const GRAMMAR = new RegExp(grammar((part) => `(${part})`, '(?:'))

/** The same grammar as the JSON Schema pattern of the OpenAPI document. */
export const TIMESTAMP_PATTERN = grammar((part) => part, '(')

/**
 * The JSON Schema pattern of an instant as reporting shows it (formatInstant in
 * app/support/zoned_instants.ts, decisions.md §2): the grammar with six fractional digits.
 */
export const SHOWN_INSTANT_PATTERN = grammar((part) => part, '(', true)

export interface Timestamp {
  /** The instant with the caller's offset, to the millisecond. */
  readonly dateTime: DateTime
  /** Microseconds since the epoch, exact. */
  readonly epochMicros: bigint
  /** Whole seconds since the epoch (the instant's second, floored). */
  readonly epochSeconds: number
  /** Microseconds past `epochSeconds`: 0 to 999,999. */
  readonly micros: number
  /** The value as given; a valid PostgreSQL timestamptz literal. */
  readonly sql: string
}

/**
 * A parsed timestamp. Plain numbers, with the bigint and luxon forms made only when
 * asked for: the import parses several per line, and building both for each was a
 * tenth of its preparation (bench/README.md › collections_import.ts).
 */
class ParsedTimestamp implements Timestamp {
  constructor(
    readonly sql: string,
    readonly epochSeconds: number,
    readonly micros: number,
    private offsetMinutes: number
  ) {}

  get epochMicros() {
    return BigInt(this.epochSeconds) * 1_000_000n + BigInt(this.micros)
  }

  get dateTime() {
    const offset = Math.abs(this.offsetMinutes)
    const zone = `UTC${this.offsetMinutes >= 0 ? '+' : '-'}${Math.floor(offset / 60)}:${String(offset % 60).padStart(2, '0')}`
    return DateTime.fromMillis(this.epochSeconds * 1000 + Math.floor(this.micros / 1000), {
      zone,
    })
  }
}

export function parseTimestamp(value: unknown): Timestamp | null {
  if (typeof value !== 'string') return null
  const match = GRAMMAR.exec(value)
  if (!match) return null
  const [, y, mo, d, h, mi, s, fraction = '', sign, offH, offM] = match
  const year = Number(y)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  if (year === 0 || hour > 23 || minute > 59 || second > 59) return null
  let offsetMinutes = 0
  if (sign) {
    const offsetMinute = Number(offM)
    if (offsetMinute > 59) return null
    offsetMinutes = Number(offH) * 60 + offsetMinute
    if (offsetMinutes > 14 * 60) return null
    if (sign === '-') offsetMinutes = -offsetMinutes
  }
  const month = Number(mo)
  const day = Number(d)
  // Impossible dates (2026-02-30, 2025-02-29) are refused.
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null
  const epochSeconds =
    daysSinceEpoch(year, month, day) * 86_400 +
    hour * 3600 +
    minute * 60 +
    second -
    offsetMinutes * 60
  return new ParsedTimestamp(value, epochSeconds, Number(fraction.padEnd(6, '0')), offsetMinutes)
}

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** Days in a month (1-12) of the proleptic Gregorian calendar. */
export const daysInMonth = (year: number, month: number) =>
  month === 2
    ? isLeapYear(year)
      ? 29
      : 28
    : month === 4 || month === 6 || month === 9 || month === 11
      ? 30
      : 31

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar (the civil-days
 * arithmetic of eras of 400 years, exact for every year of the grammar).
 */
function daysSinceEpoch(year: number, month: number, day: number) {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

const timestampRule = vine.createRule((value, _options, field) => {
  if (parseTimestamp(value) === null) {
    field.report(
      'The {{ field }} field must be a timestamp such as 2026-03-01T00:00:00+08:00.',
      'timestamp',
      field
    )
  }
})

/** A query or body field in the timestamp grammar, parsed to a `Timestamp`. */
export const timestampField = () =>
  vine
    .string()
    .use(timestampRule())
    .transform((value) => parseTimestamp(value)!)
