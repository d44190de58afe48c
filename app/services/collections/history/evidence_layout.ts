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
 * `b` (absent once purged). A record's body is under its month (body_month, the month
 * of its retain_until) until that month is purged whole, then loose if kept (held, or
 * imported after the purge). PURGED_AT is the purged_at the contract shows: the
 * record's own, else its month's when its body went with the month. The body is a
 * lateral subquery kept apart (OFFSET 0), so its month is a parameter and each row
 * probes one partition (run-time pruning) instead of all of them.
 */
export const EVIDENCE_FROM = `${RECORDS} e
  LEFT JOIN ${PURGED_MONTHS} pm ON pm.month = e.body_month
  LEFT JOIN LATERAL (
    SELECT * FROM ${BODIES} lb WHERE lb.id = e.id
      AND lb.body_month = CASE WHEN pm.month IS NULL THEN e.body_month ELSE 'infinity'::date END
    OFFSET 0
  ) b ON true`
export const PURGED_AT = 'COALESCE(e.purged_at, CASE WHEN b.id IS NULL THEN pm.purged_at END)'
/** `e` is not purged, by itself or with its month (no join needed). */
export const UNPURGED = `e.purged_at IS NULL
  AND (NOT EXISTS (SELECT 1 FROM ${PURGED_MONTHS} pm WHERE pm.month = e.body_month)
    OR EXISTS (SELECT 1 FROM ${BODIES} lb WHERE lb.id = e.id AND lb.body_month = 'infinity'))`

/**
 * First argument of the month lock (pg_advisory_xact_lock(int, int)); the second is
 * evidence_month_key of the month (evidence_view.ts).
 */
export const MONTH_LOCK_CLASS = 1110

/**
 * The SQL type of an array of event ids, as their columns are (char(26)). Compared with
 * a text[] instead, every id is cast to text: the key's index no longer applies and
 * each statement scans the whole table (each batch of a maintenance run over a
 * million events read them all).
 */
export const EVENT_IDS = 'char(26)[]'

/** body_month of bodies outside every month partition (and of records outside years 1-9999). */
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
