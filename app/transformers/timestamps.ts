/*
| Timestamps on the wire: ISO 8601 in UTC (decisions.md §2). luxon types `toISO()` as
| possibly null because a DateTime can be invalid; one read from a timestamptz column
| or made by the clock never is. A Date (a column read without a model) gives the same
| text: UTC, milliseconds, `Z`.
*/
import type { DateTime } from 'luxon'

export const utcIso = (value: DateTime): string => value.toUTC().toISO()!

/** A nullable column: null (or a relation not loaded) stays null. */
export const utcIsoOrNull = (value: DateTime | Date | null | undefined): string | null =>
  value instanceof Date ? value.toISOString() : (value?.toUTC().toISO() ?? null)
