/*
| The collections timestamp grammar (app/validators/rules/timestamp.ts) for the import,
| without building a luxon DateTime per value: parseTimestamp's DateTime was the
| largest part of parsing a line (bench/README.md). Exactly as strict as
| parseTimestamp: the same pattern, a nonzero year, hours to 23, minutes and seconds
| to 59, an offset up to ±14:00 with minutes to 59, and a real calendar date (where
| parseTimestamp lets luxon refuse 2026-02-30). tests/unit/import_timestamp.spec.ts
| compares the two on every field's edges and on random values. The result is a
| Timestamp; its `dateTime` is made by parseTimestamp only when read.
*/
import { parseTimestamp, type Timestamp } from '#validators/rules/timestamp'

const GRAMMAR =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:Z|([+-])(\d{2}):(\d{2}))$/

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** Milliseconds since the epoch of a UTC calendar time (years 1-99 included). */
function utcMillis(year: number, month: number, day: number, h: number, mi: number, s: number) {
  const date = new Date(Date.UTC(2000, month - 1, day, h, mi, s))
  date.setUTCFullYear(year)
  return date.getTime()
}

export function parseImportTimestamp(value: unknown): Timestamp | null {
  if (typeof value !== 'string') return null
  const match = GRAMMAR.exec(value)
  if (!match) return null
  const [, y, mo, d, h, mi, s, fraction = '', sign, offH, offM] = match
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  if (year === 0 || hour > 23 || minute > 59 || second > 59) return null
  if (month < 1 || month > 12 || day < 1) return null
  if (day > (month === 2 && isLeap(year) ? 29 : DAYS[month - 1])) return null
  let offsetMinutes = 0
  if (sign) {
    if (Number(offM) > 59) return null
    offsetMinutes = Number(offH) * 60 + Number(offM)
    if (offsetMinutes > 14 * 60) return null
    if (sign === '-') offsetMinutes = -offsetMinutes
  }
  const micros = Number(fraction.padEnd(6, '0'))
  const epochSeconds =
    (utcMillis(year, month, day, hour, minute, second) - offsetMinutes * 60_000) / 1000
  return {
    epochMicros: BigInt(epochSeconds) * 1_000_000n + BigInt(micros),
    sql: value,
    get dateTime() {
      return parseTimestamp(value)!.dateTime
    },
  }
}
