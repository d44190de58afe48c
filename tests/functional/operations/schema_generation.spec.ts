/*
| Schema generation cannot break the checkout (providers/schema_generation_provider.ts,
| docs/operations.md › Schema generation and rollbacks): the real `node ace`, in this
| checkout, against a database of the test's own. database/schema.ts is regenerated
| only from a database with every migration applied, and written only when its content
| changes; after every step each command still boots.
|
| These commands run in the checkout itself: whatever happens, the committed file is
| put back as it was before the test (guardingCommittedSchema).
*/
import { test } from '@japa/runner'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises'
import pg from 'pg'
import type { Assert } from '@japa/assert'
import app from '@adonisjs/core/services/app'
import env from '#start/env'
import { exitOf, within } from '#tests/helpers/server_process'
import { COMMITTED_SCHEMA_PATH, schemaDraftPath } from '#providers/schema_generation_provider'

const COMMAND_BOUND_MS = 180_000
const TEST_TIMEOUT_MS = 900_000

const committedSchemaPath = app.makePath(COMMITTED_SCHEMA_PATH)

/** A database of this test's own on the test server: its name and URL. */
const scratchDatabase = (() => {
  const url = new URL(env.get('DATABASE_URL')!)
  const name = `${url.pathname.slice(1)}_schema_generation_${randomBytes(4).toString('hex')}`
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
  url.pathname = `/${name}`
  return { name, url: url.toString() }
})()

/**
 * Statements on the test server over a connection of their own: the app's connections
 * carry the service's statement timeout, which a DROP DATABASE outlasts on a busy machine.
 */
async function onTestServer(...statements: string[]) {
  const client = new pg.Client({ connectionString: env.get('DATABASE_URL') })
  await client.connect()
  try {
    for (const statement of statements) await client.query(statement)
  } finally {
    await client.end()
  }
}

const dropScratchDatabase = () =>
  onTestServer(`DROP DATABASE IF EXISTS "${scratchDatabase.name}" WITH (FORCE)`)

async function recreateScratchDatabase() {
  await dropScratchDatabase()
  await onTestServer(`CREATE DATABASE "${scratchDatabase.name}"`)
}

async function appliedMigrations() {
  const client = new pg.Client({ connectionString: scratchDatabase.url })
  await client.connect()
  try {
    const { rows } = await client.query<{ total: string }>(
      `SELECT count(*) AS total FROM adonis_schema`
    )
    return Number(rows[0].total)
  } finally {
    await client.end()
  }
}

interface AceRun {
  code: number | null
  stdout: string
  stderr: string
  /** Where that process's generator wrote its draft. */
  draftPath: string
}

/** `node ace <args>` in this checkout, against the scratch database. */
async function ace(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<AceRun> {
  const child = spawn(process.execPath, ['ace', ...args], {
    cwd: app.makePath(),
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: scratchDatabase.url,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  try {
    const { code } = await within(exitOf(child), COMMAND_BOUND_MS, `node ace ${args.join(' ')}`)
    const draftPath = app.makePath(schemaDraftPath(child.pid!))
    return { code, stdout, stderr, draftPath }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
}

function describeRun(args: string[], run: AceRun) {
  return `node ace ${args.join(' ')} exited ${run.code}\n${run.stdout}\n${run.stderr}`
}

/**
 * Runs `body` with the committed file's bytes and mtime recorded; the file is written
 * back afterwards if anything changed it, so a failing test never leaves the checkout
 * with another schema.ts.
 */
async function guardingCommittedSchema(
  body: (committed: { bytes: Buffer; mtimeMs: number }) => Promise<void>
) {
  const { mtimeMs } = await stat(committedSchemaPath)
  const committed = { bytes: await readFile(committedSchemaPath), mtimeMs }
  try {
    await body(committed)
  } finally {
    const now = await readFile(committedSchemaPath).catch(() => null)
    if (!now?.equals(committed.bytes)) await writeFile(committedSchemaPath, committed.bytes)
  }
}

test.group('Schema generation › database/schema.ts', (group) => {
  group.each.setup(() => recreateScratchDatabase())
  group.teardown(() => dropScratchDatabase())

  /**
   * Runs a command that must succeed, then checks what every step must leave: the
   * committed file byte-identical with its mtime unchanged, no draft left behind, and
   * the commands still booting (`node ace list` loads every command module, and with it
   * the models that import database/schema.ts).
   */
  async function step(
    assert: Assert,
    committed: { bytes: Buffer; mtimeMs: number },
    args: string[],
    extraEnv: NodeJS.ProcessEnv = {}
  ) {
    const run = await ace(args, extraEnv)
    assert.equal(run.code, 0, describeRun(args, run))
    const after = await readFile(committedSchemaPath)
    assert.isTrue(
      after.equals(committed.bytes),
      `node ace ${args.join(' ')} changed ${COMMITTED_SCHEMA_PATH}`
    )
    const { mtimeMs } = await stat(committedSchemaPath)
    assert.equal(
      mtimeMs,
      committed.mtimeMs,
      `node ace ${args.join(' ')} wrote ${COMMITTED_SCHEMA_PATH}`
    )
    assert.isFalse(existsSync(run.draftPath), `node ace ${args.join(' ')} left its draft`)
    const list = await ace(['list'])
    assert.equal(list.code, 0, describeRun(['list'], list))
    return run
  }

  test('a migration:run that changes nothing leaves the committed file and its mtime alone', async ({
    assert,
  }) => {
    await guardingCommittedSchema(async (committed) => {
      // The committed file is what these migrations generate: writing it again would
      // restart `npm run dev` for nothing.
      await step(assert, committed, ['migration:run'])
      await step(assert, committed, ['migration:run'])
      assert.isAbove(await appliedMigrations(), 0)
    })
  }).timeout(TEST_TIMEOUT_MS)

  test('rolling every migration back and migrating again leaves the checkout bootable and the file unchanged', async ({
    assert,
  }) => {
    await guardingCommittedSchema(async (committed) => {
      await step(assert, committed, ['migration:run'])
      const rollback = await step(assert, committed, ['migration:rollback', '--batch=0'])
      assert.equal(await appliedMigrations(), 0)
      // One line on stderr says why the file was left alone.
      assert.match(rollback.stderr, /database\/schema\.ts left as it is: .*not applied/)
      await step(assert, committed, ['migration:run'])
      assert.isAbove(await appliedMigrations(), 0)
    })
  }).timeout(TEST_TIMEOUT_MS)

  test('migration:reset, migration:refresh and migration:fresh leave the file unchanged', async ({
    assert,
  }) => {
    await guardingCommittedSchema(async (committed) => {
      await step(assert, committed, ['migration:run'])
      const reset = await step(assert, committed, ['migration:reset'])
      assert.equal(await appliedMigrations(), 0)
      assert.match(reset.stderr, /database\/schema\.ts left as it is: .*not applied/)
      await step(assert, committed, ['migration:refresh'])
      assert.isAbove(await appliedMigrations(), 0)
      // Over a migrated database: db:wipe drops tables, not the migrations' trigger
      // functions, which the migrations therefore create OR REPLACE.
      await step(assert, committed, ['migration:fresh'])
      assert.isAbove(await appliedMigrations(), 0)
    })
  }).timeout(TEST_TIMEOUT_MS)

  test('a committed file that differs from the migrated database is regenerated', async ({
    assert,
  }) => {
    await guardingCommittedSchema(async (committed) => {
      await appendFile(committedSchemaPath, '// stale\n')
      const run = await ace(['migration:run'])
      assert.equal(run.code, 0, describeRun(['migration:run'], run))
      const regenerated = await readFile(committedSchemaPath)
      assert.isTrue(
        regenerated.equals(committed.bytes),
        `migration:run did not regenerate ${COMMITTED_SCHEMA_PATH}`
      )
      assert.isFalse(existsSync(run.draftPath))
    })
  }).timeout(TEST_TIMEOUT_MS)

  test('production never generates the schema', async ({ assert }) => {
    await guardingCommittedSchema(async (committed) => {
      await step(assert, committed, ['migration:run'])
      const production = {
        NODE_ENV: 'production',
        APP_KEY: randomBytes(32).toString('hex'),
      }
      const run = await step(assert, committed, ['schema:generate'], production)
      assert.include(run.stdout, 'Schema generation is disabled')
    })
  }).timeout(TEST_TIMEOUT_MS)
})
