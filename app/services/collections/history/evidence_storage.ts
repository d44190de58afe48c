/*
| Where evidence is stored (migration 1110; docs/operations.md › Retention by
| partition). One row an event in `evidence_records` (what the history shows besides
| the payload, and body_month: the UTC month of its retain_until), its body (the
| seals, snapshot_size, projection_version) in `evidence_bodies`, range-partitioned
| by body_month, a partition a month in the schema `evidence_months`. A month purged
| as a whole is a row of `evidence_purged_months`; from then on the bodies its events
| keep (held ones, copied at the purge, and those imported later) lie in the loose
| partition (LOOSE_MONTH), and a record's purged_at is its own, else its month's when
| its body went with the month (evidence_layout.ts). `exchange_evidence` is a view of
| them (evidence_view.ts) for whoever reads or writes an event as one row; the service
| uses the tables.
|
| The month lock: a writer of bodies into a month holds it shared for its transaction,
| the month's purge holds it exclusively, so an import writing into a month and a
| purge emptying it never overlap.
*/
import db from '@adonisjs/lucid/services/db'
import {
  LOOSE_MONTH,
  MONTH_LOCK_CLASS,
  PURGED_MONTHS,
} from '#services/collections/history/evidence_layout'

/** A date[] literal of 'YYYY-MM-DD' months (knex would spread an array binding). */
export const DATE_ARRAY = (months: string[]) => `{${months.join(',')}}`

/** Months whose partition this process has seen or created. */
const knownPartitions = new Set<string>()

/**
 * Creates the partitions of `months` that do not exist yet, in a transaction of their
 * own (creating one locks the bodies' table, so never inside a writer's transaction
 * that may hold a month lock: see the top of this file).
 */
export async function ensureBodyPartitions(months: Iterable<string>) {
  const missing = [...new Set(months)].filter((month) => !knownPartitions.has(month))
  if (missing.length === 0) return
  await db.rawQuery('SELECT evidence_body_partition(m) FROM unnest(?::date[]) AS m ORDER BY m', [
    DATE_ARRAY(missing),
  ])
  for (const month of missing) knownPartitions.add(month)
}

/** Forgets what this process knows of partitions (after a migration rebuilt them). */
export function forgetBodyPartitions() {
  knownPartitions.clear()
}

/**
 * Takes the month lock of `months` shared for the client's transaction, before it
 * writes any body (a purge of one of them waits for the writer's commit, a writer
 * waits for a purge under way), and answers those it may write bodies into: the
 * months not purged; the bodies of the others go loose. Their partitions exist
 * (ensureBodyPartitions, before the transaction).
 */
export async function lockMonthsForWriting(
  client: { query: (sql: string, values?: unknown[]) => Promise<{ rows: any[] }> },
  months: Iterable<string>
): Promise<Set<string>> {
  const wanted = [...new Set(months)].sort()
  if (wanted.length === 0) return new Set()
  const literal = DATE_ARRAY(wanted)
  await client.query(
    `SELECT pg_advisory_xact_lock_shared(${MONTH_LOCK_CLASS}, evidence_month_key(m))
       FROM (SELECT unnest($1::date[]) AS m ORDER BY 1) months`,
    [literal]
  )
  // A statement of its own: its snapshot, taken once the locks are held, sees a purge
  // that committed while this writer waited.
  const result = await client.query(
    `SELECT m::text AS month, EXISTS (SELECT 1 FROM ${PURGED_MONTHS} p WHERE p.month = m) AS purged
       FROM unnest($1::date[]) AS m`,
    [literal]
  )
  return new Set(result.rows.filter((row) => !row.purged).map((row) => row.month as string))
}

/** The month a body of retention month `month` is written under, given the writable months. */
export const bodyMonthIn = (writable: Set<string>, month: string | null) =>
  month && writable.has(month) ? month : LOOSE_MONTH
