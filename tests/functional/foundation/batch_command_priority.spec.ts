/*
| Batch operator commands run below the API server's CPU priority (BATCH_COMMAND_NICE,
| app/console/batch_commands.ts; docs/operations.md › CPU priorities). Each test starts
| `node ace collections:import -` as an operator would, in a process of its own, and
| reads the nice level of every one of its threads from /proc while the command waits
| for its standard input. It is read once the command's database connection (named by
| PGAPPNAME) is open: the application has booted, and the command is at work.
*/
import { test } from '@japa/runner'
import { spawn } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import env from '#start/env'

/** The nice level of each thread of process `pid` (field 19 of its stat line). */
async function threadNiceLevels(pid: number): Promise<number[]> {
  const threads = await readdir(`/proc/${pid}/task`)
  const levels: number[] = []
  for (const thread of threads) {
    const stat = await readFile(`/proc/${pid}/task/${thread}/stat`, 'utf8').catch(() => null)
    if (stat === null) continue // a thread that ended meanwhile
    // After the command name in parentheses, the fields start at the third (state).
    levels.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]))
  }
  return levels
}

/** Waits until a backend with application name `name` is connected (polled, bounded). */
async function untilConnected(name: string, exited: Promise<unknown>) {
  let gone = false
  void exited.then(() => (gone = true))
  for (let attempt = 0; attempt < 600; attempt++) {
    if (gone) throw new Error('the import exited before connecting to the database')
    const { rows } = await db.rawQuery(
      'select 1 from pg_stat_activity where application_name = ?',
      [name]
    )
    if (rows.length > 0) return
    await sleep(100)
  }
  throw new Error(`no connection named ${name} within 60 s`)
}

let imports = 0

/**
 * Runs an import of an empty standard input (under `nice -n <startNice>` when given)
 * and returns the nice levels of its threads while it waits for input, and its exit code.
 */
async function importThreadLevels(options: { batchNice?: string; startNice?: number }) {
  const name = `batch-priority-${process.pid}-${++imports}`
  const command = [process.execPath, 'ace', 'collections:import', '-']
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: env.get('DATABASE_URL'),
    PGAPPNAME: name,
  }
  delete childEnv.BATCH_COMMAND_NICE
  if (options.batchNice !== undefined) childEnv.BATCH_COMMAND_NICE = options.batchNice
  const [file, ...args] =
    options.startNice === undefined
      ? command
      : ['nice', '-n', String(options.startNice), ...command]
  const child = spawn(file, args, {
    cwd: app.makePath(),
    env: childEnv,
    stdio: ['pipe', 'ignore', 'ignore'],
  })
  const exited = once(child, 'exit') as Promise<[number | null]>
  try {
    await untilConnected(name, exited)
    const levels = await threadNiceLevels(child.pid!)
    child.stdin.end()
    const [code] = await exited
    return { levels, code }
  } finally {
    child.kill('SIGKILL')
  }
}

test.group('Batch operator commands run below the server (BATCH_COMMAND_NICE)', () => {
  test('every thread of a batch command runs at nice 10 by default', async ({ assert }) => {
    const { levels, code } = await importThreadLevels({})
    assert.isAbove(levels.length, 1)
    assert.deepEqual([...new Set(levels)], [10])
    assert.equal(code, 0)
  }).timeout(120_000)

  test('BATCH_COMMAND_NICE sets the level', async ({ assert }) => {
    const { levels } = await importThreadLevels({ batchNice: '15' })
    assert.deepEqual([...new Set(levels)], [15])
  }).timeout(120_000)

  test('BATCH_COMMAND_NICE=0 leaves the command at the level it was started with', async ({
    assert,
  }) => {
    const { levels } = await importThreadLevels({ batchNice: '0', startNice: 3 })
    assert.deepEqual([...new Set(levels)], [3])
  }).timeout(120_000)

  test('a command started nicer than BATCH_COMMAND_NICE keeps its level, even run as root', async ({
    assert,
  }) => {
    const { levels } = await importThreadLevels({ startNice: 17 })
    assert.deepEqual([...new Set(levels)], [17])
  }).timeout(120_000)
})
