/*
| Instants read in a time zone (portal-api.md › Metrics summary, Chart; decisions.md
| §2): shown with six fractional digits and the zone's offset, the year they read
| there, and the ten-calendar-year bound of a reporting range. Pure, shared by the
| reporting validator, the calendar and the metrics transformer.
*/
import { DateTime } from 'luxon'
import { zoneOffsetMs } from '#support/time_zones'
import { microsOf, pad, splitMicros } from '#support/instants'

export const RANGE_LIMIT_YEARS = 10

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
