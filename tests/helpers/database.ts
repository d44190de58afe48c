import db from '@adonisjs/lucid/services/db'
import { Settings } from 'luxon'
import limiter from '@adonisjs/limiter/services/main'

/** Tables a migration fills (reference data) or the migrator owns: never truncated. */
const KEPT_TABLES = new Set(['adonis_schema', 'adonis_schema_versions', 'currencies'])

let tables: string[] | undefined

/** Empties every table between tests and gives the app its real clock back. */
export async function resetState() {
  Settings.now = () => Date.now()
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
