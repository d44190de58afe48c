/*
| `timestamptz` columns as Dates, read faster than by the driver's own parser
| (postgres-date) in the one form every session of this service receives: sessions run
| in UTC (config/database.ts), so PostgreSQL writes `YYYY-MM-DD HH:MM:SS[.ffffff]+00`.
| That form is read from its characters; any other (infinity, BC, another offset, a
| year before 100) goes to the driver's parser itself. The profile of `GET /portal/me`
| showed postgres-date's regular expressions and parseInts at 1.6 % of the request's
| CPU for the six timestamps of the session row (bench/README.md). The result is the
| same Date as postgres-date's, to the millisecond: a property test compares both.
*/
import pg from 'pg'

// Taken when this module is first read, before config/database.ts replaces it.
const driverParser: (text: string) => Date | number | null = pg.types.getTypeParser(
  pg.types.builtins.TIMESTAMPTZ
)

const ZERO = 48

/** The digit at `index`, or -1. */
function digitAt(text: string, index: number): number {
  const code = text.charCodeAt(index) - ZERO
  return code >= 0 && code <= 9 ? code : -1
}

/** The two-digit number at `index`, or -1. */
function twoDigits(text: string, index: number): number {
  const tens = digitAt(text, index)
  const ones = digitAt(text, index + 1)
  return tens < 0 || ones < 0 ? -1 : tens * 10 + ones
}

/** A UTC timestamp in PostgreSQL's output form, or null when `text` is in another. */
function utcTimestamp(text: string): Date | null {
  const length = text.length
  if (
    length < 22 ||
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 || // space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    !text.endsWith('+00')
  ) {
    return null
  }
  const century = twoDigits(text, 0)
  const yearOfCentury = twoDigits(text, 2)
  const month = twoDigits(text, 5)
  const day = twoDigits(text, 8)
  const hour = twoDigits(text, 11)
  const minute = twoDigits(text, 14)
  const second = twoDigits(text, 17)
  if ((century | yearOfCentury | month | day | hour | minute | second) < 0) return null
  const year = century * 100 + yearOfCentury
  // Date.UTC reads years 0-99 as 1900-1999: postgres-date corrects those.
  if (year < 100) return null
  const fractionEnd = length - 3
  let milliseconds = 0
  if (fractionEnd > 19) {
    if (text.charCodeAt(19) !== 46 || fractionEnd === 20) return null // .
    for (let index = 20; index < fractionEnd; index++) {
      if (digitAt(text, index) < 0) return null
    }
    // As postgres-date computes it (1000 × the fraction, truncated by Date.UTC), so
    // that both agree on every fraction's rounding.
    milliseconds = 1000 * Number(text.slice(19, fractionEnd))
  }
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, milliseconds))
}

/** The driver's text parser for `timestamptz` (OID 1184). */
export function parseTimestamptz(text: string): Date | number | null {
  return utcTimestamp(text) ?? driverParser(text)
}
