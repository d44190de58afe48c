/*
| The reporting calendar (portal-api.md › Chart, GET /portal/collections/metrics and
| /charts; decisions.md §2): which IANA zones are accepted, the ten-calendar-year
| range bound, and the day/month/year buckets of a range in the reporting timezone.
| Pure: luxon's zone data and the committed IANA name list only, no database. Instants
| are exact epoch microseconds (bigint) because the range bounds carry microseconds.
|
| A period (local day, month or year) is the half-open range of instants from its
| start to the next period's start. The start of local date D is the earliest instant
| from which the local date never again reads before D:
| - normally local midnight;
| - when midnight is skipped (spring forward at 00:00) the transition instant, so
|   that day is 23 hours long;
| - when midnight happens twice (fall back across 00:00) the later one, so the
|   previous day holds the repeated hour and is 25 hours long;
| - a local date that never happens (Pacific/Apia, 2011-12-30) starts and ends at the
|   same instant: it has no instants, so it has no bucket.
*/
import { DateTime, IANAZone } from 'luxon'
import { IANA_ZONE_NAMES } from '#services/collections/reporting/iana_zones'

export type Interval = 'day' | 'month' | 'year'
export const INTERVALS = ['day', 'month', 'year'] as const

/** Most buckets a chart may have, partial and empty ones included (portal-api.md › Limits). */
export const BUCKET_LIMITS: Record<Interval, number> = { day: 366, month: 120, year: 10 }

export const RANGE_LIMIT_YEARS = 10

const HOUR_MS = 3_600_000

/*
| IANA names only: the zones and links of the tz database (app/services/collections/reporting/iana_zones.ts,
| generated from tzdata: `backward` links such as US/Eastern, Asia/Calcutta, EST,
| EST5EDT, Etc/GMT+8, UTC, GMT included), and among them those the runtime's tz data
| (ICU, through luxon) can compute: `Factory` is IANA but unknown to ICU. Matched
| case-insensitively as the tz database specifies. ICU alone would also accept its own
| names outside the database (BST for Asia/Dhaka, AST for Alaska, SystemV/EST5, names
| tzdata dropped such as US/Pacific-New) and numeric offsets (`+08:00`): all refused.
| The shape check first, so that garbage costs no lookup.
*/
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/

const IANA_NAMES = new Set(IANA_ZONE_NAMES.map((name) => name.toLowerCase()))

/*
| Verdicts by name: luxon's isValidZone builds an Intl formatter per call, on every
| reporting request. Bounded like the offset formatters below, since the names are
| the client's.
*/
const zoneVerdicts = new Map<string, boolean>()

export function isIanaTimezone(name: string): boolean {
  if (name.length > 64 || !ZONE_NAME.test(name)) return false
  let valid = zoneVerdicts.get(name)
  if (valid === undefined) {
    valid = IANA_NAMES.has(name.toLowerCase()) && IANAZone.isValidZone(name)
    if (zoneVerdicts.size > 1000) zoneVerdicts.clear()
    zoneVerdicts.set(name, valid)
  }
  return valid
}

// ---------------------------------------------------------------- instants

/** Epoch microseconds → epoch milliseconds (floor) and the microseconds left over. */
function splitMicros(micros: bigint): { ms: number; subMs: number } {
  let ms = micros / 1000n
  let rest = micros - ms * 1000n
  if (rest < 0n) {
    ms -= 1n
    rest += 1000n
  }
  return { ms: Number(ms), subMs: Number(rest) }
}

export const microsOf = (ms: number): bigint => BigInt(ms) * 1000n

/*
| Zone offsets, read from the runtime's tz data (the same ICU data luxon uses) through
| one formatter per zone: `longOffset` gives the offset with its seconds
| (`GMT+08:03:52` before standard time) and costs a fraction of luxon's
| formatToParts, which matters at three calls per bucket boundary.
*/
const LONG_OFFSET = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/

/*
| Offsets already read, per zone and instant. The tz data does not change while the
| process runs, and requests share instants: every chart of a zone reads the same
| period starts (and the same probes around them), whatever its range or merchant, so
| after the first chart of a month or a day the lookups are map reads (about 700 per
| daily chart). Bounded: past OFFSET_CACHE_LIMIT entries in all, the cache starts
| over.
*/
interface ZoneOffsets {
  formatter: Intl.DateTimeFormat
  byInstant: Map<number, number>
}
const zones = new Map<string, ZoneOffsets>()
const OFFSET_CACHE_LIMIT = 200_000
let cachedOffsets = 0

function zoneOffsetsOf(zoneName: string): ZoneOffsets {
  let zone = zones.get(zoneName)
  if (!zone) {
    if (zones.size >= 1000) {
      zones.clear()
      cachedOffsets = 0
    }
    zone = {
      formatter: new Intl.DateTimeFormat('en-US', {
        timeZone: zoneName,
        timeZoneName: 'longOffset',
      }),
      byInstant: new Map(),
    }
    zones.set(zoneName, zone)
  }
  return zone
}

/** Offset of `zoneName` at epoch `ms`, in milliseconds. */
export function zoneOffsetMs(zoneName: string, ms: number): number {
  const zone = zoneOffsetsOf(zoneName)
  const known = zone.byInstant.get(ms)
  if (known !== undefined) return known
  const offset = readOffset(zone.formatter, zoneName, ms)
  if (cachedOffsets >= OFFSET_CACHE_LIMIT) {
    for (const other of zones.values()) other.byInstant.clear()
    cachedOffsets = 0
  }
  zone.byInstant.set(ms, offset)
  cachedOffsets++
  return offset
}

function readOffset(formatter: Intl.DateTimeFormat, zoneName: string, ms: number): number {
  const match = LONG_OFFSET.exec(formatter.format(ms))
  if (!match) throw new Error(`unreadable offset of ${zoneName}`)
  if (!match[1]) return 0
  const magnitude = (Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4] ?? 0)) * 1000
  return match[1] === '-' ? -magnitude : magnitude
}

/**
 * An instant in `zone`, six fractional digits and a `±HH:MM` offset
 * (`2026-03-01T00:00:00.000000+08:00`). RFC 3339 offsets have no seconds: before
 * standard time (local mean time such as +08:04:52) the offset is rounded to the
 * minute and the wall time shown is the instant at that offset, so the instant stays
 * exact.
 */
export function formatInstant(micros: bigint, zoneName: string): string {
  return formatInstantAt(micros, zoneOffsetMs(zoneName, splitMicros(micros).ms))
}

/** formatInstant with the zone's offset at that instant already known (`offsetMs`). */
export function formatInstantAt(micros: bigint, offsetMs: number): string {
  const { ms, subMs } = splitMicros(micros)
  const offsetMinutes = Math.round(offsetMs / 60_000)
  const wall = new Date(ms + offsetMinutes * 60_000)
  const absolute = Math.abs(offsetMinutes)
  const offset = `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`
  return (
    `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}` +
    `T${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}` +
    `.${pad(wall.getUTCMilliseconds(), 3)}${pad(subMs, 3)}${offset}`
  )
}

/** The year an instant reads in `zoneName` (wall clock at the offset shown by formatInstant). */
export function localYear(micros: bigint, zoneName: string): number {
  const { ms } = splitMicros(micros)
  const offsetMinutes = Math.round(zoneOffsetMs(zoneName, ms) / 60_000)
  return new Date(ms + offsetMinutes * 60_000).getUTCFullYear()
}

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

// ---------------------------------------------------------------- periods

/** A local calendar date (proleptic Gregorian). */
export interface LocalDate {
  year: number
  month: number
  day: number
}

/** Local midnight of `date` read as if it were UTC, in epoch ms. */
function wallMidnightMs(date: LocalDate): number {
  const wall = new Date(0)
  wall.setUTCFullYear(date.year, date.month - 1, date.day)
  return wall.getTime()
}

function firstInstantAtOrAfterWall(zone: string, wall: number, lo: number, hi: number) {
  // Smallest instant in (lo, hi] whose wall clock reads `wall` or later (a gap).
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (mid + zoneOffsetMs(zone, mid) >= wall) hi = mid
    else lo = mid
  }
  return hi
}

/** The first instant (epoch ms) of local date `date` in `zone`, as defined above. */
export function startOfLocalDate(date: LocalDate, zone: string): number {
  return startAndOffsetOf(date, zone).start
}

/** startOfLocalDate, with the zone's offset at that instant. */
function startAndOffsetOf(date: LocalDate, zone: string): { start: number; offset: number } {
  const wall = wallMidnightMs(date)
  // Any zone's midnight lies within [wall - 14h, wall + 12h]. Sampling the offsets
  // just outside that window tells whether a transition happens near it.
  const before = zoneOffsetMs(zone, wall - 15 * HOUR_MS)
  const after = zoneOffsetMs(zone, wall + 13 * HOUR_MS)
  const atMidnight = zoneOffsetMs(zone, wall - before)
  if (before === after && atMidnight === before) return { start: wall - before, offset: before }
  const offsets = [...new Set([before, after, atMidnight])]
  const valid = offsets
    .map((offset) => wall - offset)
    .filter((instant) => instant + zoneOffsetMs(zone, instant) === wall)
  // Midnight was skipped: the day starts at the transition.
  const start =
    valid.length > 0
      ? Math.max(...valid)
      : firstInstantAtOrAfterWall(
          zone,
          wall,
          wall - Math.max(...offsets) - 1,
          wall - Math.min(...offsets)
        )
  return { start, offset: zoneOffsetMs(zone, start) }
}

/** The local date an instant reads in `zone`. */
function localDateOf(ms: number, zone: string): LocalDate {
  const local = DateTime.fromMillis(ms, { zone })
  return { year: local.year, month: local.month, day: local.day }
}

function periodOf(date: LocalDate, interval: Interval): LocalDate {
  if (interval === 'year') return { year: date.year, month: 1, day: 1 }
  if (interval === 'month') return { year: date.year, month: date.month, day: 1 }
  return date
}

function shiftPeriod(period: LocalDate, interval: Interval, steps: number): LocalDate {
  const wall = new Date(0)
  if (interval === 'year') wall.setUTCFullYear(period.year + steps, 0, 1)
  else if (interval === 'month') wall.setUTCFullYear(period.year, period.month - 1 + steps, 1)
  else wall.setUTCFullYear(period.year, period.month - 1, period.day + steps)
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() }
}

function pad(value: number, width = 2) {
  return value < 0 ? `-${String(-value).padStart(width, '0')}` : String(value).padStart(width, '0')
}

export function periodLabel(period: LocalDate, interval: Interval): string {
  const year = pad(period.year, 4)
  if (interval === 'year') return year
  if (interval === 'month') return `${year}-${pad(period.month)}`
  return `${year}-${pad(period.month)}-${pad(period.day)}`
}

// ---------------------------------------------------------------- buckets

export interface Bucket {
  /** `YYYY-MM-DD`, `YYYY-MM` or `YYYY`. */
  period: string
  /** Exact bounds, epoch microseconds, half-open [from, to). */
  from: bigint
  to: bigint
  /** Clipped by the range: the first bucket when `from` is not a period start, the last when `to` is not. */
  partial: boolean
  /** The zone's offset at `from` and at `to`, in ms (for formatInstantAt). */
  fromOffsetMs: number
  toOffsetMs: number
}

export type BucketsResult = { ok: true; buckets: Bucket[] } | { ok: false; limit: number }

/**
 * The buckets of [from, to) in `zoneName`: every period the range intersects, empty
 * ones included, clipped to the range. Stops counting past `limit` (a chart is never
 * truncated: the caller refuses it instead).
 */
export function buildBuckets(
  from: bigint,
  to: bigint,
  zone: string,
  interval: Interval,
  limit: number = BUCKET_LIMITS[interval]
): BucketsResult {
  const startOf = (period: LocalDate) => microsOf(startOfLocalDate(period, zone))
  let period = periodOf(localDateOf(splitMicros(from).ms, zone), interval)
  let start = startOf(period)
  // Where local dates repeat across a fall-back, the reading can be one period early
  // or late; step until from lies in [start, next start).
  while (start > from) {
    period = shiftPeriod(period, interval, -1)
    start = startOf(period)
  }
  let nextStart = startOf(shiftPeriod(period, interval, 1))
  while (nextStart <= from) {
    period = shiftPeriod(period, interval, 1)
    start = nextStart
    nextStart = startOf(shiftPeriod(period, interval, 1))
  }

  // Period starts up to the first at or after `to` (a few more than the limit can
  // hold, since a skipped day has no bucket), then the buckets between them.
  const periods: LocalDate[] = [period]
  const starts: bigint[] = [start]
  const cap = limit + 8
  // A period starts at most 16 hours (the largest offset, local mean time included)
  // before its local midnight read as UTC: past that, it starts after `to`.
  const toMs = splitMicros(to).ms
  while (periods.length <= cap) {
    const next = shiftPeriod(periods[periods.length - 1], interval, 1)
    periods.push(next)
    starts.push(-1n)
    if (wallMidnightMs(next) - 16 * HOUR_MS > toMs) break
  }
  const offsets = fillStarts(periods, starts, zone, interval)
  const offsetAt = (micros: bigint) => zoneOffsetMs(zone, splitMicros(micros).ms)

  const buckets: Bucket[] = []
  for (let index = 0; index + 1 < periods.length && starts[index] < to; index++) {
    const [periodStart, periodEnd] = [starts[index], starts[index + 1]]
    if (periodEnd <= periodStart) continue // a local date the zone skipped
    if (buckets.length === limit) return { ok: false, limit }
    buckets.push({
      period: periodLabel(periods[index], interval),
      from: periodStart < from ? from : periodStart,
      to: periodEnd > to ? to : periodEnd,
      partial: periodStart < from || periodEnd > to,
      fromOffsetMs: periodStart < from ? offsetAt(from) : offsets[index],
      toOffsetMs: periodEnd > to ? offsetAt(to) : offsets[index + 1],
    })
  }
  if (starts[starts.length - 1] < to) return { ok: false, limit }
  return { ok: true, buckets }
}

/**
 * The start of each period after the first (already known), and the zone's offset at
 * every start (returned). Days take a fast path: the previous day's offset, checked
 * with one lookup; where two consecutive days disagree a transition lies between
 * them, and the days around it are recomputed exactly. Months and years (at most 121
 * of them) are computed exactly each.
 */
function fillStarts(
  periods: LocalDate[],
  starts: bigint[],
  zone: string,
  interval: Interval
): number[] {
  const offsetAt = (micros: bigint) => zoneOffsetMs(zone, splitMicros(micros).ms)
  const offsets: number[] = [offsetAt(starts[0])]
  const exactly = (index: number) => {
    const { start, offset } = startAndOffsetOf(periods[index], zone)
    starts[index] = microsOf(start)
    offsets[index] = offset
  }
  if (interval !== 'day') {
    for (let index = 1; index < periods.length; index++) exactly(index)
    return offsets
  }
  for (let index = 1; index < periods.length; index++) {
    const wall = wallMidnightMs(periods[index])
    const guess = wall - offsets[index - 1]
    offsets.push(zoneOffsetMs(zone, guess))
    starts[index] = microsOf(guess)
  }
  const exact = new Set<number>()
  for (let index = 1; index < periods.length; index++) {
    if (offsets[index] === offsets[index - 1]) continue
    for (const near of [index - 1, index, index + 1]) {
      if (near >= 1 && near < periods.length) exact.add(near)
    }
  }
  // Recomputed after the scan above, which compares the guesses' offsets.
  for (const index of exact) exactly(index)
  return offsets
}

/**
 * The latest `to` a range starting at `from` may have: ten calendar years later in
 * `zoneName`, a 29 February anniversary clipped to 28 February, the wall time kept
 * (luxon resolves a wall time that the zone skips or repeats).
 */
export function rangeLimit(from: bigint, zoneName: string): bigint {
  const { ms, subMs } = splitMicros(from)
  const limit = DateTime.fromMillis(ms, { zone: zoneName }).plus({
    years: RANGE_LIMIT_YEARS,
  })
  return microsOf(limit.toMillis()) + BigInt(subMs)
}
