/*
| The two ways `history:purge` (purge_history.ts) purges evidence stored by month
| (evidence_storage.ts), and the plan that chooses between them.
|
| - A whole month: a month whose end is past and that holds at least
|   PARTITION_PURGE_MIN_EVENTS events due. Under the month's lock held exclusively
|   (no import writes into it meanwhile, no other run purges it), the bodies of its
|   events on legal hold are copied to the loose partition, its partition is emptied
|   with TRUNCATE, and the month is recorded as purged with the instant and the events
|   it purged. No record is written (a write to every hundredth row would rewrite
|   every page): their purged_at is the month's unless their body is loose. A month
|   already recorded (by a concurrent run) is left alone.
| - Row by row, in batches claimed with `FOR UPDATE SKIP LOCKED`: the events of smaller
|   months, of the month not over yet, and of the loose partition (held events whose
|   hold was lifted, events imported into a month already purged). Each gets its own
|   purged_at and loses its body. A batch holds the locks of the months it reads
|   shared, so it never overlaps a whole month's purge, and skips months purged whole.
|
| Both write under the writers' lock of `exchange_evidence`, as any write of evidence:
| whoever holds the view against writers (an operator, a migration) holds the purge.
*/
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { DATE_ARRAY } from '#services/collections/history/evidence_storage'
import {
  BODIES,
  PARTITION_SCHEMA,
  PURGED_MONTHS,
  RECORDS,
  UNPURGED,
} from '#services/collections/history/evidence_layout'
import {
  BODY_COLUMNS,
  LOOSE_MONTH,
  MONTH_LOCK_CLASS,
} from '#services/collections/history/evidence_layout'

/** Below this many events due, a month is purged row by row (a TRUNCATE would not pay). */
export const PARTITION_PURGE_MIN_EVENTS = 10_000

export interface PurgePlan {
  /** Events due (past retention, not on hold, not purged), per body month. */
  dueByMonth: Map<string, number>
  /** Events past retention kept because they are on legal hold. */
  onLegalHold: number
  /** The months purged whole, oldest first. */
  wholeMonths: string[]
  /** The months (loose included) whose due events are purged row by row. */
  rowMonths: string[]
}

/** The months with a partition and not purged whole, whose start is not after `at`. */
async function openMonths(at: Date): Promise<string[]> {
  const result = await db.rawQuery(
    `SELECT month::text AS month FROM (
       SELECT to_date(substr(c.relname, 8), 'YYYY_MM') AS month
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = ?::regclass AND c.relname LIKE 'bodies\\_____\\___') m
     WHERE month <= ? AND NOT EXISTS (SELECT 1 FROM ${PURGED_MONTHS} p WHERE p.month = m.month)
     ORDER BY month`,
    [BODIES, at]
  )
  return result.rows.map((row: { month: string }) => row.month)
}

const monthEnd = (month: string) => {
  const [year, index] = month.split('-').map(Number)
  return new Date(Date.UTC(year, index, 1))
}

/** Events due whose bodies are loose (joined as `e` and `b`). */
const LOOSE_DUE = `${RECORDS} e JOIN ${BODIES} b ON b.id = e.id AND b.body_month = '${LOOSE_MONTH}'
  WHERE e.retain_until <= ? AND e.purged_at IS NULL AND NOT e.legal_hold`

export async function planPurge(at: Date, wholeMonthEvents: number): Promise<PurgePlan> {
  const months = await openMonths(at)
  const due = await db.rawQuery(
    `SELECT body_month::text AS month, count(*)::int AS due FROM ${RECORDS}
      WHERE body_month = ANY(?::date[]) AND retain_until <= ? AND purged_at IS NULL
        AND NOT legal_hold
      GROUP BY body_month
     UNION ALL
     SELECT '${LOOSE_MONTH}', count(*)::int FROM ${LOOSE_DUE}`,
    [DATE_ARRAY(months), at, at]
  )
  const dueByMonth = new Map<string, number>(
    due.rows
      .filter((row: { due: number }) => row.due > 0)
      .map((row: { month: string; due: number }) => [row.month, row.due])
  )
  const held = await db.rawQuery(
    `SELECT count(*)::int AS held FROM ${RECORDS} e
      WHERE e.retain_until <= ? AND e.legal_hold AND ${UNPURGED}`,
    [at]
  )
  const wholeMonths = months.filter(
    (month) => (dueByMonth.get(month) ?? 0) >= wholeMonthEvents && monthEnd(month) <= at
  )
  return {
    dueByMonth,
    onLegalHold: held.rows[0].held,
    wholeMonths,
    rowMonths: [...dueByMonth.keys()].filter((month) => !wholeMonths.includes(month)),
  }
}

const WRITERS_LOCK = 'LOCK TABLE exchange_evidence IN ROW EXCLUSIVE MODE'

/**
 * Purges `month` whole (see the top of this file); the events it purged, or null when
 * a concurrent run had purged it.
 */
export async function purgeMonth(month: string, at: Date): Promise<number | null> {
  const partition = `${PARTITION_SCHEMA}.bodies_${month.slice(0, 4)}_${month.slice(5, 7)}`
  return db.transaction(async (trx) => {
    await trx.rawQuery(`SELECT pg_advisory_xact_lock(${MONTH_LOCK_CLASS}, evidence_month_key(?))`, [
      month,
    ])
    await trx.rawQuery(WRITERS_LOCK)
    const done = await trx.rawQuery(`SELECT 1 FROM ${PURGED_MONTHS} WHERE month = ?`, [month])
    if (done.rows.length > 0) return null
    await trx.rawQuery(
      `INSERT INTO ${BODIES} (id, body_month, ${BODY_COLUMNS.join(', ')})
       SELECT b.id, '${LOOSE_MONTH}', ${BODY_COLUMNS.map((column) => `b.${column}`).join(', ')}
       FROM ${RECORDS} e JOIN ${BODIES} b ON b.id = e.id AND b.body_month = ?
       WHERE e.legal_hold AND e.purged_at IS NULL AND e.body_month = ?
         AND e.retain_until >= ?::date AND e.retain_until < ?::date + interval '1 month'`,
      [month, month, month, month]
    )
    const due = await trx.rawQuery(
      `SELECT count(*)::int AS due FROM ${RECORDS}
        WHERE body_month = ? AND purged_at IS NULL AND NOT legal_hold`,
      [month]
    )
    await trx.rawQuery(`TRUNCATE ${partition}`)
    await trx.rawQuery(`INSERT INTO ${PURGED_MONTHS} (month, purged_at, events) VALUES (?, ?, ?)`, [
      month,
      at,
      due.rows[0].due,
    ])
    return due.rows[0].due as number
  })
}

/** A batch of events due in months not purged whole (their bodies under their month). */
const PURGE_DATED = `
WITH due AS (
  SELECT id, body_month FROM ${RECORDS} e
  WHERE body_month = ANY(?::date[]) AND retain_until <= ? AND purged_at IS NULL
    AND NOT legal_hold
    AND NOT EXISTS (SELECT 1 FROM ${PURGED_MONTHS} pm WHERE pm.month = e.body_month)
  LIMIT ?
  FOR UPDATE SKIP LOCKED
), purged AS (
  UPDATE ${RECORDS} e SET purged_at = ? FROM due WHERE e.id = due.id
  RETURNING e.id, e.body_month
), bodies AS (
  DELETE FROM ${BODIES} b USING purged p WHERE b.id = p.id AND b.body_month = p.body_month
)
SELECT count(*)::int AS purged FROM purged`

/** A batch of events due whose bodies are loose. */
const PURGE_LOOSE = `
WITH due AS (
  SELECT e.id FROM ${LOOSE_DUE}
  LIMIT ?
  FOR UPDATE OF e SKIP LOCKED
), purged AS (
  UPDATE ${RECORDS} e SET purged_at = ? FROM due WHERE e.id = due.id RETURNING e.id
), bodies AS (
  DELETE FROM ${BODIES} b USING purged p WHERE b.id = p.id AND b.body_month = '${LOOSE_MONTH}'
)
SELECT count(*)::int AS purged FROM purged`

/**
 * One batch of the row-by-row purge over `months` (loose last); returns how many
 * events it purged.
 */
export async function purgeRows(
  trx: TransactionClientContract,
  months: string[],
  at: Date,
  batchSize: number
): Promise<number> {
  await trx.rawQuery(WRITERS_LOCK)
  const dated = months.filter((month) => month !== LOOSE_MONTH)
  if (dated.length > 0) {
    await trx.rawQuery(
      `SELECT pg_advisory_xact_lock_shared(${MONTH_LOCK_CLASS}, evidence_month_key(m))
         FROM (SELECT unnest(?::date[]) AS m ORDER BY 1) months`,
      [DATE_ARRAY(dated)]
    )
    const result = await trx.rawQuery(PURGE_DATED, [DATE_ARRAY(dated), at, batchSize, at])
    if (result.rows[0].purged > 0) return result.rows[0].purged
  }
  if (!months.includes(LOOSE_MONTH)) return 0
  const result = await trx.rawQuery(PURGE_LOOSE, [at, batchSize, at])
  return result.rows[0].purged
}
