/*
| Instants as exact epoch microseconds (bigint, since range bounds carry microseconds)
| and the integer date arithmetic of the reporting calendar, its read plans and the
| transactions list: proleptic Gregorian dates from day counts and back, and
| timestamptz literals.
*/

/** Epoch microseconds → epoch milliseconds (floor) and the microseconds left over. */
export function splitMicros(micros: bigint): { ms: number; subMs: number } {
  let ms = micros / 1000n
  let rest = micros - ms * 1000n
  if (rest < 0n) {
    ms -= 1n
    rest += 1000n
  }
  return { ms: Number(ms), subMs: Number(rest) }
}

export const microsOf = (ms: number): bigint => BigInt(ms) * 1000n

const FIRST_ISO_MS = new Date(0).setUTCFullYear(1, 0, 1)
const AFTER_ISO_MS = new Date(0).setUTCFullYear(10_000, 0, 1)
const DAY_MS = 86_400_000
const TWO_DIGITS = Array.from({ length: 100 }, (_, value) => String(value).padStart(2, '0'))
const THREE_DIGITS = Array.from({ length: 1000 }, (_, value) => String(value).padStart(3, '0'))

/**
 * The proleptic Gregorian date of a day count from 1970-01-01 (the days-from-civil
 * inverse of H. Hinnant's date algorithms): integer arithmetic only, a fraction of
 * what a Date and its formatting cost.
 */
export function civilDate(days: number): { year: number; month: number; day: number } {
  const shifted = days + 719_468
  const era = Math.floor(shifted / 146_097)
  const dayOfEra = shifted - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365
  )
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153)
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
  return {
    year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1,
  }
}

/** The day count from 1970-01-01 of a proleptic Gregorian date (month 1-12, may be 13). */
export function daysFromCivil(year: number, month: number, day: number): number {
  if (month > 12) {
    year += Math.floor((month - 1) / 12)
    month = ((month - 1) % 12) + 1
  }
  const shiftedYear = month <= 2 ? year - 1 : year
  const era = Math.floor(shiftedYear / 400)
  const yearOfEra = shiftedYear - era * 400
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

/**
 * An instant as a PostgreSQL timestamptz literal, exact to the microsecond, in UTC.
 * Called twice per part of a read plan (over seven hundred times for a daily or a
 * ten-year monthly chart), so years 0001-9999 are written from integer arithmetic
 * and digit tables; the Date path below only for instants outside them.
 */
export function sqlInstant(micros: bigint): string {
  const { ms, subMs } = splitMicros(micros)
  return sqlInstantOfMs(ms, subMs)
}

/** sqlInstant of epoch milliseconds `ms` and `subMs` microseconds beyond them. */
export function sqlInstantOfMs(ms: number, subMs = 0): string {
  if (ms >= FIRST_ISO_MS && ms < AFTER_ISO_MS) {
    const days = Math.floor(ms / DAY_MS)
    const { year, month, day } = civilDate(days)
    const msOfDay = ms - days * DAY_MS
    const seconds = Math.floor(msOfDay / 1000)
    return (
      `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-` +
      `${TWO_DIGITS[day]}T${TWO_DIGITS[Math.floor(seconds / 3600)]}:` +
      `${TWO_DIGITS[Math.floor(seconds / 60) % 60]}:${TWO_DIGITS[seconds % 60]}.` +
      `${THREE_DIGITS[msOfDay % 1000]}${THREE_DIGITS[subMs]}Z`
    )
  }
  const utc = new Date(ms)
  const year = utc.getUTCFullYear()
  const time =
    `${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())} ${pad(utc.getUTCHours())}:` +
    `${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())}.` +
    `${pad(utc.getUTCMilliseconds(), 3)}${pad(subMs, 3)}+00`
  // Year 0 and before (an instant just before 0001-01-01 local time) are BC years.
  return year > 0 ? `${pad(year, 4)}-${time}` : `${pad(1 - year, 4)}-${time} BC`
}

/** `value` in at least `width` digits, zero-padded after its sign. */
export function pad(value: number, width = 2) {
  return value < 0 ? `-${String(-value).padStart(width, '0')}` : String(value).padStart(width, '0')
}
