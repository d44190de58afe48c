/*
| The day/month/year buckets of a range in the reporting timezone: every local period
| (calendar.ts) the range intersects, clipped to it.
*/
import { zoneOffsetMs } from '#support/time_zones'
import { microsOf, splitMicros } from '#support/instants'
import {
  HOUR_MS,
  localDateOf,
  periodLabel,
  periodOf,
  shiftPeriod,
  startAndOffsetOf,
  startOfLocalDate,
  wallMidnightMs,
  type LocalDate,
} from '#services/collections/reporting/calendar'
import type { Interval } from '#models/collections_vocabulary'

/** One bucket of a chart as buildBuckets finds it. */
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

/** Most buckets a chart may have, partial and empty ones included (portal-api.md › Limits). */
export const BUCKET_LIMITS: Record<Interval, number> = { day: 366, month: 120, year: 10 }

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
