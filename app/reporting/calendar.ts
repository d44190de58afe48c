/*
| The reporting calendar (portal-api.md › Chart, GET /portal/collections/metrics and
| /charts; decisions.md §2): which IANA zones are accepted, the ten-calendar-year
| range bound, and the day/month/year buckets of a range in the reporting timezone.
| Pure: luxon's zone data only, no database. Instants are exact epoch microseconds
| (bigint) because the range bounds carry microseconds.
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
import { DateTime, FixedOffsetZone, IANAZone } from 'luxon'

export type Interval = 'day' | 'month' | 'year'
export const INTERVALS = ['day', 'month', 'year'] as const

/** Most buckets a chart may have, partial and empty ones included (portal-api.md › Limits). */
export const BUCKET_LIMITS: Record<Interval, number> = { day: 366, month: 120, year: 10 }

export const RANGE_LIMIT_YEARS = 10

const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000

/*
| IANA names only: `Area/Location` style identifiers and the tz database's own
| single names (UTC, Etc/GMT+8, EST5EDT...), as the runtime's tz data knows them,
| case-insensitively as the tz database specifies. Numeric offsets (`+08:00`, which
| the runtime would otherwise accept) and `UTC+8`-like strings are refused.
*/
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/

export function isIanaTimezone(name: string): boolean {
  return name.length <= 64 && ZONE_NAME.test(name) && IANAZone.isValidZone(name)
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

/** Offset of `zone` at epoch `ms`, in whole milliseconds (LMT offsets have seconds). */
function offsetMs(zone: IANAZone, ms: number): number {
  return Math.round(zone.offset(ms) * MINUTE_MS)
}

/**
 * An instant in `zone`, six fractional digits and a `±HH:MM` offset
 * (`2026-03-01T00:00:00.000000+08:00`). RFC 3339 offsets have no seconds: before
 * standard time (local mean time such as +08:04:52) the offset is rounded to the
 * minute and the wall time shown is the instant at that offset, so the instant stays
 * exact.
 */
export function formatInstant(micros: bigint, zoneName: string): string {
  const { ms, subMs } = splitMicros(micros)
  const zone = IANAZone.create(zoneName)
  const offsetMinutes = Math.round(zone.offset(ms))
  const local = DateTime.fromMillis(ms, { zone: FixedOffsetZone.instance(offsetMinutes) })
  return `${local.toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS")}${String(subMs).padStart(3, '0')}${local.toFormat('ZZ')}`
}

/** An instant as a PostgreSQL timestamptz literal, exact to the microsecond, in UTC. */
export function sqlInstant(micros: bigint): string {
  const { ms, subMs } = splitMicros(micros)
  const utc = DateTime.fromMillis(ms, { zone: 'utc' })
  const time = `${utc.toFormat('MM-dd HH:mm:ss.SSS')}${String(subMs).padStart(3, '0')}+00`
  // Year 0 and before (an instant just before 0001-01-01 local time) are BC years.
  return utc.year > 0
    ? `${String(utc.year).padStart(4, '0')}-${time}`
    : `${String(1 - utc.year).padStart(4, '0')}-${time} BC`
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

function firstInstantAtOrAfterWall(zone: IANAZone, wall: number, lo: number, hi: number) {
  // Smallest instant in (lo, hi] whose wall clock reads `wall` or later (a gap).
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (mid + offsetMs(zone, mid) >= wall) hi = mid
    else lo = mid
  }
  return hi
}

/** The first instant (epoch ms) of local date `date` in `zone`, as defined above. */
export function startOfLocalDate(date: LocalDate, zone: IANAZone): number {
  const wall = wallMidnightMs(date)
  // Any zone's midnight lies within [wall - 14h, wall + 12h]. Sampling the offsets
  // just outside that window tells whether a transition happens near it.
  const before = offsetMs(zone, wall - 15 * HOUR_MS)
  const after = offsetMs(zone, wall + 13 * HOUR_MS)
  if (before === after && offsetMs(zone, wall - before) === before) return wall - before
  const offsets = [...new Set([before, after, offsetMs(zone, wall - before)])]
  const valid = offsets
    .map((offset) => wall - offset)
    .filter((instant) => instant + offsetMs(zone, instant) === wall)
  if (valid.length > 0) return Math.max(...valid)
  // Midnight was skipped: the day starts at the transition.
  const lowest = Math.min(...offsets)
  const highest = Math.max(...offsets)
  return firstInstantAtOrAfterWall(zone, wall, wall - highest - 1, wall - lowest)
}

/** The local date an instant reads in `zone`. */
function localDateOf(ms: number, zone: IANAZone): LocalDate {
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

const pad = (value: number, width = 2) =>
  value < 0 ? `-${String(-value).padStart(width, '0')}` : String(value).padStart(width, '0')

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
  zoneName: string,
  interval: Interval,
  limit: number = BUCKET_LIMITS[interval]
): BucketsResult {
  const zone = IANAZone.create(zoneName)
  const fromMs = splitMicros(from).ms
  let period = periodOf(localDateOf(fromMs, zone), interval)
  let start = microsOf(startOfLocalDate(period, zone))
  // Where local dates repeat across a fall-back, the reading can be one period early
  // or late; step until from lies in [start, next start).
  while (start > from) {
    period = shiftPeriod(period, interval, -1)
    start = microsOf(startOfLocalDate(period, zone))
  }
  let next = shiftPeriod(period, interval, 1)
  let end = microsOf(startOfLocalDate(next, zone))
  while (end <= from) {
    period = next
    start = end
    next = shiftPeriod(period, interval, 1)
    end = microsOf(startOfLocalDate(next, zone))
  }

  const buckets: Bucket[] = []
  while (start < to) {
    if (end > start) {
      if (buckets.length === limit) return { ok: false, limit }
      buckets.push({
        period: periodLabel(period, interval),
        from: start < from ? from : start,
        to: end > to ? to : end,
        partial: start < from || end > to,
      })
    }
    period = next
    start = end
    next = shiftPeriod(period, interval, 1)
    end = microsOf(startOfLocalDate(next, zone))
  }
  return { ok: true, buckets }
}

/**
 * The latest `to` a range starting at `from` may have: ten calendar years later in
 * `zoneName`, a 29 February anniversary clipped to 28 February, the wall time kept
 * (luxon resolves a wall time that the zone skips or repeats).
 */
export function rangeLimit(from: bigint, zoneName: string): bigint {
  const { ms, subMs } = splitMicros(from)
  const limit = DateTime.fromMillis(ms, { zone: IANAZone.create(zoneName) }).plus({
    years: RANGE_LIMIT_YEARS,
  })
  return microsOf(limit.toMillis()) + BigInt(subMs)
}
