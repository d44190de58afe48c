import db from '@adonisjs/lucid/services/db'
import { Settings } from 'luxon'
import limiter from '@adonisjs/limiter/services/main'
import { logoImageLane } from '#services/merchants/logo_image'
import { forgetBodyPartitions } from '#services/collections/history/evidence_storage'

/** Tables a migration fills (reference data) or the migrator owns: never truncated. */
const KEPT_TABLES = new Set(['adonis_schema', 'adonis_schema_versions', 'currencies'])

let tables: string[] | undefined

/** How long untilSomeBackendWaitsForALock waits for a request to reach the lock it tests. */
const LOCK_WAIT_MS = 60_000

/** Empties every table between tests and gives the app its real clock back. */
export async function resetState() {
  Settings.now = () => Date.now()
  // The logo lane's budgets are keyed by merchant id, and ids restart below: the image
  // time of one test, long on a busy machine, must not be charged to the next one's.
  logoImageLane().images.refillBudgets()
  if (!tables) {
    const rows = await db.from('pg_tables').where('schemaname', 'public').select('tablename')
    tables = rows
      .map((row: { tablename: string }) => row.tablename)
      .filter((name: string) => !KEPT_TABLES.has(name))
  }
  // Redis-kept limits live outside PostgreSQL; the database store is emptied below.
  if (limiter.config.default !== 'database') await limiter.clear([limiter.config.default])
  if (tables.length > 0) {
    await db.rawQuery(
      `TRUNCATE ${tables.map((name) => `"${name}"`).join(', ')} RESTART IDENTITY CASCADE`
    )
  }
  // Emptying evidence_purged_months makes purged months writable again, which the
  // service never does: their partitions, dropped by a purge, are made again on demand.
  forgetBodyPartitions()
}

/** Controls the app clock (luxon) instead of sleeping. */
export function setNow(iso: string | Date) {
  const at = typeof iso === 'string' ? Date.parse(iso) : iso.getTime()
  Settings.now = () => at
}

export function advanceClock(milliseconds: number) {
  const base = Settings.now()
  Settings.now = () => base + milliseconds
}

/**
 * Waits until some backend of this test database is blocked waiting for a lock,
 * optionally only one running a query that matches `query` (an ILIKE pattern), or at
 * least `backends` of them (racing requests all held at one point). How a test holds a
 * lock, fires a request and acts once the request is stuck on it. Bounded by time, not
 * by polls: on a busy machine the request takes longer to get there while each poll
 * stays quick.
 */
export async function untilSomeBackendWaitsForALock(
  options: { query?: string; backends?: number } = {}
) {
  const giveUpAt = performance.now() + LOCK_WAIT_MS
  while (performance.now() < giveUpAt) {
    const waiting = db
      .from('pg_stat_activity')
      .whereRaw('datname = current_database()')
      .where('wait_event_type', 'Lock')
    if (options.query) waiting.whereILike('query', options.query)
    const row = await waiting.count('* as total').first()
    if (Number(row?.total ?? 0) >= (options.backends ?? 1)) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error(
    `no backend waited for a lock within ${LOCK_WAIT_MS} ms${options.query ? ` (${options.query})` : ''}`
  )
}
