/*
| Flags that refuse what they don't understand (issue 37 › 3, goal 3): a boolean flag
| takes only the forms its --help names (--dry-run, --dry-run=true, --no-dry-run,
| --dry-run=false); any other value, and any unknown flag, is a one-line error on
| standard error, a non-zero exit, and nothing done: no change, no audit record. Each
| destructive command is run as an operator runs it, in a process of its own.
*/
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from '@japa/runner'
import type { Assert } from '@japa/assert'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { runCommand } from '#tests/helpers/foundation'
import { runAce } from '#tests/helpers/ace_process'
import {
  eventOf,
  importLines,
  jsonLinesOf,
  transactionLine,
} from '#tests/helpers/collections_import'
import { createMerchantWithUser } from '#tests/helpers/portal'
import { MerchantFactory } from '#database/factories/merchant_factory'
import HistoryPurge from '../../../commands/history_purge.js'
import MerchantCreate from '../../../commands/merchant_create.js'

/** Evidence past its retention (due for a purge), one transaction each. */
async function importExpiredEvidence(count: number) {
  const merchant = await MerchantFactory.create()
  await importLines(
    Array.from({ length: count }, (_, index) =>
      transactionLine(merchant.id, {
        merchant_transaction_id: `ORD-${index}`,
        events: [eventOf({ body: { ok: true }, retain_until: '2026-04-01T00:00:00Z' })],
      })
    )
  )
  return merchant
}

async function purgedRows() {
  const row = await db.from('exchange_evidence').whereNotNull('purged_at').count('* as n').first()
  return Number(row?.n)
}

async function auditRecords(action: string) {
  const row = await db.from('audit_logs').where('action', action).count('* as n').first()
  return Number(row?.n)
}

/** A refusal: non-zero, one line on standard error naming the flag, nothing on stdout. */
function assertRefused(
  assert: Assert,
  result: { code: number | null; stdout: string; stderr: string },
  flag: string
) {
  assert.notEqual(result.code, 0, result.stderr)
  assert.isNotNull(result.code)
  const lines = result.stderr.trim().split('\n')
  assert.lengthOf(lines, 1, result.stderr)
  assert.include(lines[0], flag)
  assert.equal(result.stdout.trim(), '')
}

test.group('Boolean flags take only their documented forms', (group) => {
  group.each.setup(() => resetState())

  test('history:purge --dry-run=1 and --dry-run=yes are refused: nothing purged, no audit record', async ({
    assert,
  }) => {
    await importExpiredEvidence(3)
    for (const value of ['1', 'yes']) {
      const result = await runAce(['history:purge', `--dry-run=${value}`])
      assertRefused(assert, result, '--dry-run')
    }
    assert.equal(await purgedRows(), 0)
    assert.equal(await auditRecords('history.purge'), 0)
  }).timeout(300_000)

  test('history:reproject --dry-run=yes is refused: nothing re-projected, no audit record', async ({
    assert,
  }) => {
    await importExpiredEvidence(3)
    await db.from('exchange_evidence').update({ projection_version: null })
    const result = await runAce(['history:reproject', '--dry-run=yes'])
    assertRefused(assert, result, '--dry-run')
    const stale = await db.from('exchange_evidence').whereNull('projection_version').count('* as n')
    assert.equal(Number(stale[0].n), 3)
    assert.equal(await auditRecords('history.reproject'), 0)
  }).timeout(300_000)

  test('auth:prune, which has no flags, refuses an unknown one: nothing deleted, no audit record', async ({
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    await db.rawQuery(
      `INSERT INTO password_reset_mailings (user_id, sent_at, expires_at)
       SELECT ?, now() - interval '2 hours', now() - interval '1 hour' FROM generate_series(1, 3)`,
      [user.id]
    )
    const result = await runAce(['auth:prune', '--dry-run'])
    assertRefused(assert, result, '--dry-run')
    assert.lengthOf(await db.from('password_reset_mailings'), 3)
    assert.equal(await auditRecords('auth.prune'), 0)
  }).timeout(300_000)

  test('collections:import refuses an unknown flag: nothing imported, no audit record', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const file = join(app.makePath('tmp'), `flag-refusal-${process.pid}.jsonl`)
    await writeFile(file, jsonLinesOf([transactionLine(merchant.id)]) + '\n')
    const result = await runAce(['collections:import', '--flag=x', file])
    assertRefused(assert, result, '--flag')
    assert.lengthOf(await db.from('transactions'), 0)
    assert.equal(await auditRecords('collections.import'), 0)
  }).timeout(300_000)

  test('--help names the forms a boolean flag takes', async ({ assert }) => {
    const result = await runAce(['history:purge', '--help'])
    assert.equal(result.code, 0, result.stderr)
    const help = result.stdout.replaceAll(/\s+/g, ' ')
    assert.include(help, '--dry-run or --dry-run=true; off: --no-dry-run or --dry-run=false')
  }).timeout(300_000)
})

test.group('Boolean flags in-process', (group) => {
  group.each.setup(() => resetState())

  test('the documented forms: --dry-run and --dry-run=true count; --no-dry-run and --dry-run=false purge', async ({
    assert,
  }) => {
    await importExpiredEvidence(1)
    for (const form of ['--dry-run', '--dry-run=true']) {
      const result = await runCommand(HistoryPurge, [form])
      assert.equal(result.exitCode, 0, result.stderr.join('\n'))
      assert.include(result.json(), { dry_run: true, due: 1, purged: 0 })
    }
    assert.equal(await purgedRows(), 0)

    const off = await runCommand(HistoryPurge, ['--no-dry-run'])
    assert.include(off.json(), { dry_run: false, purged: 1 })
    await db.from('exchange_evidence').update({ purged_at: null })
    const alsoOff = await runCommand(HistoryPurge, ['--dry-run=false'])
    assert.include(alsoOff.json(), { dry_run: false, purged: 1 })
  })

  test('any other value, or the flag twice, is refused before anything is done', async ({
    assert,
  }) => {
    await importExpiredEvidence(1)
    for (const argv of [
      ['--dry-run=0'],
      ['--dry-run=TRUE'],
      ['--dry-run=on'],
      ['--dry-run', '--dry-run'],
    ]) {
      const result = await runCommand(HistoryPurge, argv)
      assert.equal(result.exitCode, 1, argv.join(' '))
      assert.deepEqual(result.stdout, [])
      assert.lengthOf(result.stderr, 1)
      assert.match(result.stderr[0], /^error: --dry-run /)
    }
    assert.equal(await purgedRows(), 0)
    assert.equal(await auditRecords('history.purge'), 0)
  })

  test('the rule holds for every boolean flag: merchant:create --production=yes creates nothing', async ({
    assert,
  }) => {
    const result = await runCommand(MerchantCreate, [
      '--name=Acme',
      '--email=pay@acme.test',
      '--production=yes',
    ])
    assert.equal(result.exitCode, 1)
    assert.match(result.stderr[0], /--production takes no value other than true or false/)
    assert.lengthOf(await db.from('merchants'), 0)
  })
})
