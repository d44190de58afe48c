/*
| Long commands stop cleanly on SIGTERM and SIGINT (issue 37 › 4, goal 4): real
| processes, real signals. Each command is held on a table lock the test takes, the
| signal is sent once the command waits on it (a condition, not a clock), and the lock
| is released once the command says it received the signal. The batch in flight then
| commits as a whole and the command stops: exit 143 (SIGTERM) or 130 (SIGINT), one
| JSON object with `interrupted: true` and the counts, one audit record saying
| interrupted, and the same command run again completes the work.
*/
import { writeFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import {
  printedJson,
  runAce,
  startAce,
  untilWaitingForLockOn,
  type AceProcess,
} from '#tests/helpers/ace_process'
import { eventOf, importLines, transactionLine } from '#tests/helpers/collections_import'
import { MerchantFactory } from '#database/factories/merchant_factory'

/** Generous bound for the process to end once the lock is released (issue 37: 15 s). */
const EXIT_WITHIN_MS = 15_000

/**
 * Starts `argv` with `table` locked against writes, sends `signal` once the command
 * waits on the lock, releases it once the command has received the signal, and
 * returns how the process ended.
 */
async function interruptedRun(argv: string[], table: string, signal: NodeJS.Signals) {
  const lock = await db.transaction()
  let command: AceProcess | undefined
  try {
    await lock.rawQuery(`LOCK TABLE ${table} IN SHARE MODE`)
    command = startAce(argv)
    await untilWaitingForLockOn(table)
    command.child.kill(signal)
    await command.stderrMatches(new RegExp(`${signal} received`))
  } finally {
    await lock.rollback()
  }
  const exit = await command.exited(EXIT_WITHIN_MS)
  return { ...exit, stdout: command.stdout(), stderr: command.stderr() }
}

/** Waits (bounded) until no other backend runs a statement matching `query` (ILIKE). */
async function untilNoBackendRuns(query: string) {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const running = await count(
      db
        .from('pg_stat_activity')
        .whereRaw('pid <> pg_backend_pid()')
        .whereILike('query', query)
        .whereNot('state', 'idle')
    )
    if (running === 0) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`a backend still runs ${query}`)
}

/** Waits (bounded) until `expected` transactions are stored. */
async function untilTransactions(expected: number) {
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    if ((await count(db.from('transactions'))) >= expected) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`fewer than ${expected} transactions were ever stored`)
}

async function auditRecords(action: string) {
  return db.from('audit_logs').where('action', action).orderBy('id').select('*')
}

async function count(query: ReturnType<typeof db.from>) {
  const row = await query.count('* as n').first()
  return Number(row?.n)
}

/** Evidence past its retention, one transaction each, imported in-process. */
async function importEvidence(rows: number) {
  const merchant = await MerchantFactory.create()
  await importLines(
    Array.from({ length: rows }, (_, index) =>
      transactionLine(merchant.id, {
        merchant_transaction_id: `ORD-${String(index).padStart(5, '0')}`,
        events: [eventOf({ body: { ok: index }, retain_until: '2026-04-01T00:00:00Z' })],
      })
    )
  )
}

test.group('Long commands stop cleanly on a signal', (group) => {
  group.each.setup(() => resetState())

  test('collections:import of 40,000 lines: SIGTERM part-way keeps whole batches, exits 143, audits once; the same import again completes it', async ({
    assert,
    cleanup,
  }) => {
    const merchant = await MerchantFactory.create()
    const file = join(app.makePath('tmp'), `stop-on-signal-${process.pid}.jsonl`)
    const lines = Array.from({ length: 40_000 }, (_, index) =>
      JSON.stringify(
        transactionLine(merchant.id, {
          merchant_transaction_id: `SIG-${String(index).padStart(5, '0')}`,
        })
      )
    )
    await writeFile(file, lines.join('\n') + '\n')
    cleanup(() => rm(file, { force: true }))

    const stopped = await interruptedRun(['collections:import', file], 'transactions', 'SIGTERM')
    assert.equal(stopped.code, 143, stopped.stderr)
    const printed = printedJson(stopped.stdout)
    assert.isTrue(printed.interrupted)
    const stored = await count(db.from('transactions'))
    assert.isAbove(stored, 0)
    assert.isBelow(stored, 40_000)
    assert.equal(printed.transactions, stored)
    assert.equal(printed.events, await count(db.from('exchange_evidence')))
    // Whole batches, from the first line: every line up to `lines` is in, none after.
    assert.equal(printed.lines, stored)
    assert.equal(
      await count(
        db
          .from('transactions')
          .where('merchant_transaction_id', '<', `SIG-${String(stored).padStart(5, '0')}`)
      ),
      stored
    )

    const records = await auditRecords('collections.import')
    assert.lengthOf(records, 1)
    assert.equal(records[0].outcome, 'failure')
    assert.equal(records[0].reason, 'interrupted')
    assert.include(records[0].metadata, { interrupted: true, transactions: stored })

    const again = await runAce(['collections:import', file])
    assert.equal(again.code, 0, again.stderr)
    assert.include(printedJson(again.stdout), { interrupted: false, transactions: 40_000 })
    assert.equal(await count(db.from('transactions')), 40_000)
    const distinct = await db.from('transactions').countDistinct('merchant_transaction_id as n')
    assert.equal(Number(distinct[0].n), 40_000)
    assert.equal(await count(db.from('exchange_evidence')), 40_000)
  }).timeout(600_000)

  test('history:purge: SIGTERM stops after the batch in progress, exits 143, audits once; the next run purges the rest', async ({
    assert,
  }) => {
    await importEvidence(1_500)
    const stopped = await interruptedRun(['history:purge'], 'exchange_evidence', 'SIGTERM')
    assert.equal(stopped.code, 143, stopped.stderr)
    const printed = printedJson(stopped.stdout)
    assert.include(printed, { interrupted: true, due: 1_500, purged: 1_000, batches: 1 })
    assert.equal(await count(db.from('exchange_evidence').whereNotNull('purged_at')), 1_000)

    const records = await auditRecords('history.purge')
    assert.lengthOf(records, 1)
    assert.equal(records[0].reason, 'interrupted')
    assert.include(records[0].metadata, { interrupted: true, purged: 1_000, batches: 1 })

    const again = await runAce(['history:purge'])
    assert.equal(again.code, 0, again.stderr)
    assert.include(printedJson(again.stdout), { interrupted: false, purged: 500 })
    assert.equal(await count(db.from('exchange_evidence').whereNull('purged_at')), 0)
  }).timeout(600_000)

  test('history:reproject: SIGINT stops after the batch in progress, exits 130, audits once; the next run resumes', async ({
    assert,
  }) => {
    await importEvidence(500)
    await db.from('exchange_evidence').update({ projection_version: null })
    const stopped = await interruptedRun(['history:reproject'], 'exchange_evidence', 'SIGINT')
    assert.equal(stopped.code, 130, stopped.stderr)
    const printed = printedJson(stopped.stdout)
    assert.include(printed, { interrupted: true, due: 500, reprojected: 200, batches: 1 })
    assert.equal(await count(db.from('exchange_evidence').whereNull('projection_version')), 300)

    const records = await auditRecords('history.reproject')
    assert.lengthOf(records, 1)
    assert.equal(records[0].reason, 'interrupted')
    assert.include(records[0].metadata, { interrupted: true, reprojected: 200 })

    const again = await runAce(['history:reproject'])
    assert.equal(again.code, 0, again.stderr)
    assert.include(printedJson(again.stdout), { interrupted: false, due: 300, reprojected: 300 })
    assert.equal(await count(db.from('exchange_evidence').whereNull('projection_version')), 0)
  }).timeout(600_000)

  test('a second SIGTERM stops at once: exit 143, the batch in flight rolled back, no JSON and no audit record', async ({
    assert,
  }) => {
    await importEvidence(1_500)
    const lock = await db.transaction()
    const command = startAce(['history:purge'])
    try {
      await lock.rawQuery('LOCK TABLE exchange_evidence IN SHARE MODE')
      await untilWaitingForLockOn('exchange_evidence')
      command.child.kill('SIGTERM')
      await command.stderrMatches(/SIGTERM received/)
      command.child.kill('SIGTERM')
      const { code } = await command.exited(EXIT_WITHIN_MS)
      assert.equal(code, 143, command.stderr())
    } finally {
      await lock.rollback()
    }
    assert.equal(command.stdout().trim(), '')
    assert.match(command.stderr(), /SIGTERM again: stopping now/)
    // The batch's statement runs once the lock is released, then finds its client gone
    // and rolls back: wait for its backend to end before looking.
    await untilNoBackendRuns('%UPDATE exchange_evidence e%')
    assert.equal(await count(db.from('exchange_evidence').whereNotNull('purged_at')), 0)
    assert.lengthOf(await auditRecords('history.purge'), 0)
  }).timeout(600_000)

  test('collections:import from standard input stops on SIGTERM while it waits for more input', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const command = startAce(['collections:import', '-'], {}, { stdin: 'pipe' })
    // One batch (5,000 lines) and one line more; the pipe stays open, as an export
    // that stalls would leave it.
    const lines = Array.from({ length: 5_001 }, (_, index) =>
      JSON.stringify(
        transactionLine(merchant.id, {
          merchant_transaction_id: `PIPE-${String(index).padStart(5, '0')}`,
        })
      )
    )
    command.child.stdin!.write(lines.join('\n') + '\n')
    await untilTransactions(5_000)
    command.child.kill('SIGTERM')
    const { code } = await command.exited(EXIT_WITHIN_MS)
    assert.equal(code, 143, command.stderr())
    assert.include(printedJson(command.stdout()), {
      interrupted: true,
      transactions: 5_000,
      lines: 5_000,
    })
    assert.equal(await count(db.from('transactions')), 5_000)
    const records = await auditRecords('collections.import')
    assert.lengthOf(records, 1)
    assert.equal(records[0].reason, 'interrupted')
  }).timeout(600_000)
})
