/*
| The partitions of months purged whole are dropped (history:purge, purge_history.ts).
| Such a partition is empty and never written again (the bodies its month keeps, or
| gets from a later import, lie in the loose partition; evidence_body_partition no
| longer creates it again), yet every plan over `evidence_bodies` still lists it: with
| 120 empty months beside one, a history page's statement took 0.5 ms to run as a
| generic plan and 8.5 ms as a custom one, against 0.05 and 0.15 ms with the one
| partition alone (docs/collections-operations.md). So the cost of a read would grow
| with the months the service has lived, not with the data it keeps.
|
| - Detached CONCURRENTLY, then dropped: the bodies' table is only held SHARE UPDATE
|   EXCLUSIVE, so reads and imports of the other months never wait for it.
| - One run at a time (a session advisory lock, tried: a run that finds it held leaves
|   the work to the other), each wait bounded by `lock_timeout`: a month whose readers
|   do not let go in time is left for the next run.
| - A detach cut between its two transactions leaves the partition "detach pending",
|   which new queries no longer see; the next run finishes it (FINALIZE). A table
|   detached by a run that stopped before dropping it is dropped by the next.
| - A partition that is not empty (it cannot be, after its month's TRUNCATE) is left as
|   it is, with a warning.
*/
import logger from '@adonisjs/core/services/logger'
import type { PoolClient } from 'pg'
import { acquirePgConnection, releasePgConnection } from '#platform/pg_connection'
import {
  BODIES,
  PARTITION_SCHEMA,
  PURGED_MONTHS,
} from '#services/collections/history/evidence_layout'

/** Serialises the dropping of purged months' partitions (beside PARTITION_LOCK, 1111). */
export const DROP_LOCK = 1112

/** How long one detach or drop may wait for the readers of the month's partition. */
const LOCK_TIMEOUT = '5s'

/** A month's partition, by the name evidence_body_partition gives it. */
const MONTH_TABLE = /^bodies_\d{4}_\d{2}$/

interface PurgedMonthTable {
  name: string
  /** Still a partition of the bodies' table (else detached, not yet dropped). */
  attached: boolean
  /** Its detach was cut between its two transactions. */
  pending: boolean
}

/** The month tables whose month is purged whole, oldest first. */
async function purgedMonthTables(connection: PoolClient): Promise<PurgedMonthTable[]> {
  const result = await connection.query<PurgedMonthTable>(
    `SELECT c.relname AS name, i.inhrelid IS NOT NULL AS attached,
            coalesce(i.inhdetachpending, false) AS pending
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = $1::regclass
      WHERE n.nspname = $2 AND c.relkind = 'r' AND c.relname LIKE 'bodies\\_____\\___'
        AND EXISTS (SELECT 1 FROM ${PURGED_MONTHS} p
                     WHERE p.month = to_date(substr(c.relname, 8), 'YYYY_MM'))
      ORDER BY c.relname`,
    [BODIES, PARTITION_SCHEMA]
  )
  return result.rows.filter((table) => MONTH_TABLE.test(table.name))
}

const isLockTimeout = (error: unknown) => (error as { code?: string })?.code === '55P03'

/** Detaches (when still attached) and drops one month's table; false when left for later. */
async function dropMonthTable(connection: PoolClient, table: PurgedMonthTable) {
  const qualified = `${PARTITION_SCHEMA}.${table.name}`
  try {
    const { rows } = await connection.query(
      `SELECT NOT EXISTS (SELECT 1 FROM ${qualified}) AS empty`
    )
    if (!rows[0].empty) {
      logger.warn({ partition: qualified }, 'a purged month still holds bodies: not dropped')
      return false
    }
    if (table.attached) {
      const how = table.pending ? 'FINALIZE' : 'CONCURRENTLY'
      await connection.query(`ALTER TABLE ${BODIES} DETACH PARTITION ${qualified} ${how}`)
    }
    await connection.query(`DROP TABLE ${qualified}`)
    return true
  } catch (error) {
    if (isLockTimeout(error)) return false
    throw error
  }
}

/**
 * Drops the tables of months purged whole, until `signal` aborts; returns how many
 * it dropped (0 when another run is dropping them).
 */
export async function dropPurgedPartitions(signal?: AbortSignal): Promise<number> {
  const connection = await acquirePgConnection()
  try {
    const { rows } = await connection.query('SELECT pg_try_advisory_lock($1) AS locked', [
      DROP_LOCK,
    ])
    if (!rows[0].locked) return 0
    try {
      await connection.query(`SET lock_timeout = '${LOCK_TIMEOUT}'`)
      let dropped = 0
      for (const table of await purgedMonthTables(connection)) {
        if (signal?.aborted) break
        if (await dropMonthTable(connection, table)) dropped++
      }
      return dropped
    } finally {
      // The connection goes back to the pool: as it came.
      await connection.query('RESET lock_timeout')
      await connection.query('SELECT pg_advisory_unlock($1)', [DROP_LOCK])
    }
  } finally {
    await releasePgConnection(connection)
  }
}
