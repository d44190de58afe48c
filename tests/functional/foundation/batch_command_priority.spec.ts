/*
| Batch operator commands run below the API server's CPU priority (BATCH_COMMAND_NICE,
| app/console/batch_commands.ts; docs/operations.md › CPU priorities). Each test starts
| `node ace collections:import -` as an operator would, in a process of its own, and
| reads the nice level of every one of its threads from /proc while the command waits
| for its standard input. It is read once the command's database connection (named by
| PGAPPNAME) is open: the application has booted, and the command is at work.
*/
import { test } from '@japa/runner'
import { setTimeout as sleep } from 'node:timers/promises'
import db from '@adonisjs/lucid/services/db'
import { startAce, type AceProcess } from '#tests/helpers/ace_process'
import { exitOf, READY_MS } from '#tests/helpers/server_process'
import { threadStats } from '#tests/helpers/thread_stat'

/** Waits until `command` has a backend named `name` (polled, bounded: it boots first). */
async function untilConnected(command: AceProcess, name: string) {
  let gone = false
  void exitOf(command.child).then(() => (gone = true))
  const deadline = Date.now() + READY_MS
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the import exited before connecting:\n${command.output()}`)
    const { rows } = await db.rawQuery(
      'select 1 from pg_stat_activity where application_name = ?',
      [name]
    )
    if (rows.length > 0) return
    await sleep(100)
  }
  throw new Error(`no connection named ${name} within ${READY_MS} ms`)
}

let imports = 0

/**
 * Runs an import of an empty standard input (started at nice `startNice` when given)
 * and returns the nice levels of its threads while it waits for input, and its exit code.
 */
async function importThreadLevels(options: { batchNice?: string; startNice?: number }) {
  const name = `batch-priority-${process.pid}-${++imports}`
  const command = startAce(
    ['collections:import', '-'],
    { PGAPPNAME: name, BATCH_COMMAND_NICE: options.batchNice },
    { stdin: 'pipe', nice: options.startNice }
  )
  try {
    await untilConnected(command, name)
    const threads = await threadStats(command.child.pid!)
    const levels = threads.map((thread) => thread.nice)
    command.child.stdin!.end()
    const { code } = await command.exited()
    return { levels, code }
  } finally {
    command.kill()
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
