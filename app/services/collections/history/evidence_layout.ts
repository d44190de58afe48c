/*
| The names and SQL fragments of evidence's storage (evidence_storage.ts tells how it
| is organised), and the month a body is stored under as the import computes it: the
| UTC month of its retain_until (PostgreSQL's evidence_retain_month, evidence_view.ts,
| says the same). Pure (no application container): the import's preparation thread
| and the transaction reads use it.
*/

export const RECORDS = 'evidence_records'
export const BODIES = 'evidence_bodies'
export const PURGED_MONTHS = 'evidence_purged_months'
export const PARTITION_SCHEMA = 'evidence_months'

/**
 * An event's evidence read as one row: record `e`, its month's purge `pm`, its body
 * `b` (absent once purged). PURGED_AT is the purged_at the contract shows.
 */
export const EVIDENCE_FROM = `${RECORDS} e
  LEFT JOIN ${PURGED_MONTHS} pm ON pm.month = e.body_month
  LEFT JOIN ${BODIES} b ON b.id = e.id AND b.body_month = e.body_month`
export const PURGED_AT = 'COALESCE(e.purged_at, pm.purged_at)'
/** `e` is not purged, by itself or with its month (no join needed). */
export const UNPURGED = `e.purged_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM ${PURGED_MONTHS} pm WHERE pm.month = e.body_month)`

/**
 * First argument of the month lock (pg_advisory_xact_lock(int, int)); the second is
 * evidence_month_key of the month (evidence_view.ts).
 */
export const MONTH_LOCK_CLASS = 1110

/** body_month of bodies outside every month partition. */
export const LOOSE_MONTH = 'infinity'

/** The body's columns besides its key (id, body_month), as stored by migration 1110. */
export const BODY_COLUMNS = [
  'snapshot_ciphertext',
  'snapshot_size',
  'projection_ciphertext',
  'projection_version',
]

/** 'YYYY-MM-01' of the UTC month of an instant; null outside years 1-9999 (stored loose). */
export function monthOfInstant(epochMillis: number): string | null {
  const date = new Date(epochMillis)
  const year = date.getUTCFullYear()
  if (year < 1 || year > 9999) return null
  return `${String(year).padStart(4, '0')}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-01`
}

/** The month of a UTC timestamptz literal as the import writes it ('YYYY-MM-DD ...+00'). */
export function monthOfUtcLiteral(literal: string): string | null {
  const match = /^(\d{4})-(\d{2})-/.exec(literal)
  return match && match[1] !== '0000' ? `${match[1]}-${match[2]}-01` : null
}
