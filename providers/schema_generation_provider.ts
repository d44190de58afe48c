/*
| Schema generation that cannot break the checkout (docs/operations.md › Schema
| generation and rollbacks).
|
| Lucid regenerates the committed database/schema.ts from whatever the database holds
| after migration:run, migration:rollback (also inside migration:reset and
| migration:refresh) and migration:fresh. After a rollback that is an emptied
| database: the models' imports of the file break and no command boots any more. So
| config/database.ts points Lucid's generator at a draft under tmp/ instead, and this
| provider, on the ace kernel's hooks around `schema:generate` (whether run by hand or
| by a migration command), decides what becomes of the draft:
|  - it replaces database/schema.ts only when the database has exactly the migrations
|    of database/migrations applied (none pending, none unknown here); otherwise the
|    file is left alone and one line on stderr says why;
|  - and only when its content differs: an unchanged file is not written, so its mtime
|    stays and `npm run dev` (which restarts on a write) keeps running.
| This is the one module that leans on the framework's commands: the name of Lucid's
| `schema:generate`, its `--connection` flag, and the migrator's list of migrations.
| Console only (adonisrc.ts); production never generates (config/database.ts).
*/
import { copyFile, readFile, rename, rm } from 'node:fs/promises'
import type { ApplicationService } from '@adonisjs/core/types'

export const COMMITTED_SCHEMA_PATH = 'database/schema.ts'

/**
 * Where Lucid's generator writes. One per process, so two commands running at once
 * never share a draft; not a `.ts` name, so a draft left by a killed process is not
 * type-checked.
 */
export const schemaDraftPath = (pid: number) => `tmp/schema_generation/schema-${pid}.draft`
export const SCHEMA_DRAFT_PATH = schemaDraftPath(process.pid)

const SCHEMA_GENERATE = 'schema:generate'

export default class SchemaGenerationProvider {
  constructor(protected app: ApplicationService) {}

  async boot() {
    const kernel = await this.app.container.make('ace')
    // Why the committed file must stay as it is, per run of schema:generate; null when
    // the database matches database/migrations. Decided before the generator runs,
    // while the database connection is still open.
    const reasonsToKeep = new WeakMap<object, string | null>()

    kernel.executing(async (command) => {
      if (command.commandName !== SCHEMA_GENERATE) return
      const connection = (command as { connection?: string }).connection
      reasonsToKeep.set(command, await this.#reasonToKeepCommittedSchema(connection))
    })

    kernel.executed(async (command) => {
      if (command.commandName !== SCHEMA_GENERATE) return
      const reason = command.exitCode ? 'the generation failed' : reasonsToKeep.get(command)
      const keptBecause = await this.#settleDraft(reason ?? null)
      if (keptBecause) {
        command.logger.logError(`${COMMITTED_SCHEMA_PATH} left as it is: ${keptBecause}`)
      }
    })
  }

  /** Null when the database has exactly the migrations of database/migrations applied. */
  async #reasonToKeepCommittedSchema(connectionName: string | undefined) {
    try {
      const db = await this.app.container.make('lucid.db')
      const name = connectionName ?? db.primaryConnectionName
      // Nothing will be generated: an unknown connection (schema:generate reports it)
      // or generation disabled (production).
      const connection = db.manager.get(name)
      if (!connection || connection.config.schemaGeneration?.enabled === false) return null
      const { MigrationRunner } = await import('@adonisjs/lucid/migration')
      const runner = new MigrationRunner(db, this.app, {
        direction: 'up',
        connectionName: name,
        dryRun: true,
        disableLocks: true,
      })
      const migrations = await runner.getList()
      const pending = migrations.filter((migration) => migration.status === 'pending')
      // Applied here but without a file in database/migrations (another branch's).
      const unknown = migrations.filter(
        (migration) => migration.status !== 'pending' && migration.status !== 'migrated'
      )
      return describeMismatch(pending.length, unknown.length)
    } catch (error) {
      return `the migrations applied could not be read (${(error as Error).message})`
    }
  }

  /**
   * Replaces the committed file with the draft when there is no reason to keep it and
   * the content differs; always removes the draft. Returns the reason when a draft was
   * set aside for one.
   */
  async #settleDraft(reason: string | null): Promise<string | null> {
    const draftPath = this.app.makePath(SCHEMA_DRAFT_PATH)
    const committedPath = this.app.makePath(COMMITTED_SCHEMA_PATH)
    let draft: Buffer
    try {
      draft = await readFile(draftPath)
    } catch {
      // Nothing generated: generation disabled, or it failed before writing.
      return null
    }
    try {
      if (reason) return reason
      const committed = await readFile(committedPath).catch(() => null)
      if (!committed?.equals(draft)) await replaceWith(draftPath, committedPath)
      return null
    } finally {
      await rm(draftPath, { force: true })
    }
  }
}

function describeMismatch(pending: number, unknown: number): string | null {
  if (pending === 0 && unknown === 0) return null
  const parts = []
  if (pending > 0) parts.push(`${pending} migration(s) of database/migrations not applied`)
  if (unknown > 0) parts.push(`${unknown} applied migration(s) not in database/migrations`)
  return `the database does not match database/migrations (${parts.join(', ')}); it is regenerated by the next migration:run that applies them all`
}

/** A rename, so a reader never sees half a file; a copy across file systems. */
async function replaceWith(source: string, target: string) {
  try {
    await rename(source, target)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
    await copyFile(source, target)
  }
}
