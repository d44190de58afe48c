/*
| The reporting calendar (portal-api.md › Chart, GET /portal/collections/metrics and
| /charts; decisions.md §2): the local periods of the reporting timezone. Instants shown
| in it and the ten-calendar-year range bound are app/support/zoned_instants.ts's, the
| accepted zones app/support/time_zones.ts's, the buckets of a range buckets.ts's.
| Pure: luxon's zone data and the committed IANA name list only, no database. Instants
| are exact epoch microseconds (bigint, app/support/instants.ts) because the range
| bounds carry microseconds.
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
import { DateTime } from 'luxon'
import { zoneOffsetMs } from '#support/time_zones'
import { pad } from '#support/instants'
import type { Interval } from '#models/collections_vocabulary'

export const HOUR_MS = 3_600_000

/** A local calendar date (proleptic Gregorian). */
export interface LocalDate {
  year: number
  month: number
  day: number
}

/** Local midnight of `date` read as if it were UTC, in epoch ms. */
export function wallMidnightMs(date: LocalDate): number {
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
export function startAndOffsetOf(date: LocalDate, zone: string): { start: number; offset: number } {
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
export function localDateOf(ms: number, zone: string): LocalDate {
  const local = DateTime.fromMillis(ms, { zone })
  return { year: local.year, month: local.month, day: local.day }
}

export function periodOf(date: LocalDate, interval: Interval): LocalDate {
  if (interval === 'year') return { year: date.year, month: 1, day: 1 }
  if (interval === 'month') return { year: date.year, month: date.month, day: 1 }
  return date
}

export function shiftPeriod(period: LocalDate, interval: Interval, steps: number): LocalDate {
  const wall = new Date(0)
  if (interval === 'year') wall.setUTCFullYear(period.year + steps, 0, 1)
  else if (interval === 'month') wall.setUTCFullYear(period.year, period.month - 1 + steps, 1)
  else wall.setUTCFullYear(period.year, period.month - 1, period.day + steps)
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() }
}

export function periodLabel(period: LocalDate, interval: Interval): string {
  const year = pad(period.year, 4)
  if (interval === 'year') return year
  if (interval === 'month') return `${year}-${pad(period.month)}`
  return `${year}-${pad(period.month)}-${pad(period.day)}`
}
