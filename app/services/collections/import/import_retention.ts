/*
| The default retain_until of an imported event (captured_at + HISTORY_RETENTION_MONTHS)
| computed in JavaScript, for events the import COPYs straight into exchange_evidence.
| It must equal what PostgreSQL stores for `captured_at + make_interval(months => n)` in
| the import's session (TimeZone UTC, config/database.ts), which the staging merge
| uses: the UTC calendar month moves by n, a day past the end of the new month becomes
| its last day (Jan 31 + 1 month = Feb 28/29), the time of day and microseconds stay.
| A default past year 9999 (UTC) is the last instant of 9999, as in the merge: resource
| timestamps are RFC 3339, which has no year 10000, and retention that long is forever.
| Before year 1 it answers null and the event takes the staging merge, so PostgreSQL
| computes it there.
*/
import { daysInMonth, type Timestamp } from '#validators/rules/timestamp'

const pad = (value: number, width = 2) => String(value).padStart(width, '0')

const LAST_INSTANT = '9999-12-31 23:59:59.999999+00'

/** `capturedAt` plus `months` as a UTC timestamptz literal (null before year 1). */
export function retainUntilDefault(capturedAt: Timestamp, months: number): string | null {
  const fraction = capturedAt.micros
  const date = new Date(capturedAt.epochSeconds * 1000)
  const year = date.getUTCFullYear()
  if (year < 1) return null
  const monthIndex = date.getUTCMonth() + months
  const newYear = year + Math.floor(monthIndex / 12)
  const newMonth = monthIndex % 12
  if (newYear > 9999) return LAST_INSTANT
  const day = Math.min(date.getUTCDate(), daysInMonth(newYear, newMonth + 1))
  return (
    `${pad(newYear, 4)}-${pad(newMonth + 1)}-${pad(day)} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}` +
    `.${pad(fraction, 6)}+00`
  )
}
