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
  dateTime: DateTime
  /** Microseconds since the epoch, exact. */
  epochMicros: bigint
  /** The value as given; a valid PostgreSQL timestamptz literal. */
  sql: string
}

export function parseTimestamp(value: unknown): Timestamp | null {
  if (typeof value !== 'string') return null
  const match = GRAMMAR.exec(value)
  if (!match) return null
  const [, y, mo, d, h, mi, s, fraction = '', sign, offH, offM] = match
  const year = Number(y)
  if (year === 0 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null
  let offsetMinutes = 0
  if (sign) {
    if (Number(offM) > 59) return null
    offsetMinutes = Number(offH) * 60 + Number(offM)
    if (offsetMinutes > 14 * 60) return null
    if (sign === '-') offsetMinutes = -offsetMinutes
  }
  const micros = Number(fraction.padEnd(6, '0'))
  // Plain Date arithmetic (every list and reporting request parses two of these, the
  // import one per line or more); setUTCFullYear takes years 0-99 literally.
  const wall = new Date(0)
  wall.setUTCFullYear(year, Number(mo) - 1, Number(d))
  // Impossible dates (2026-02-30, 2025-02-29) roll over into the next month.
  if (wall.getUTCMonth() !== Number(mo) - 1 || wall.getUTCDate() !== Number(d)) return null
  wall.setUTCHours(Number(h), Number(mi), Number(s), 0)
  const epochMs = wall.getTime() - offsetMinutes * 60_000
  return {
    // luxon only when asked for (the instant at the caller's offset).
    get dateTime() {
      const zone = `UTC${offsetMinutes >= 0 ? '+' : '-'}${Math.floor(Math.abs(offsetMinutes) / 60)}:${String(Math.abs(offsetMinutes) % 60).padStart(2, '0')}`
      return DateTime.fromMillis(epochMs + Math.floor(micros / 1000), { zone })
    },
    epochMicros: BigInt(epochMs) * 1000n + BigInt(micros),
    sql: value,
  }
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
