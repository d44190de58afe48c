/*
| Retention by partition (migration 1110; docs/operations.md › Retention by partition):
| an ended month of evidence is purged by emptying its partition, and what the
| contract shows afterwards is exactly what a row-by-row purge shows; held events are
| kept byte for byte; concurrent purges and an import into the month being purged
| each leave every event purged once; the migration resumes after an interruption; a
| purge stopped by SIGTERM keeps the months it finished.
*/
import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { signedInMember, type Session } from '#tests/helpers/portal'
import { liftLimit } from '#tests/helpers/limits'
import { route } from '#tests/helpers/routes'
import { eventOf, importLines, transactionLine, type Line } from '#tests/helpers/collections_import'
import { printedJson, startAce, runAce, untilWaitingForLockOn } from '#tests/helpers/ace_process'
import { purgeExpiredEvidence } from '#services/collections/history/purge_history'
import { splitEvidence } from '#services/collections/history/evidence_split'
import { restoreEvidenceTable } from '#services/collections/history/evidence_unsplit'

const NOW = DateTime.fromISO('2026-03-01T00:00:00Z')
const JANUARY = '2026-01-15T00:00:00Z'
const FEBRUARY = '2026-02-10T00:00:00Z'
const LATER = '2026-05-01T00:00:00Z'
/** A threshold every month here reaches: January and February are purged whole. */
const WHOLE = { wholeMonthEvents: 1 }
/** A threshold no month here reaches: everything is purged row by row. */
const ROW_BY_ROW = { wholeMonthEvents: Number.MAX_SAFE_INTEGER }

/** A transaction whose events are given as [retain_until, legal_hold]. */
function lineOf(merchantId: number, index: number, events: Array<[string, boolean]>): Line {
  return transactionLine(merchantId, {
    merchant_transaction_id: `ORD-${String(index).padStart(5, '0')}`,
    events: events.map(([retainUntil, legalHold], position) =>
      eventOf({
        kind: position === 0 ? 'merchant_request.validated' : 'merchant_notification.response',
        captured_at: `2025-12-01T10:0${position}:00.000+08:00`,
        content_type: 'application/json',
        body: position === 0 ? { merchant_transaction_id: `ORD-${index}` } : { ok: index },
        retain_until: retainUntil,
        legal_hold: legalHold,
      })
    ),
  })
}

/** Held, all-expired, partly expired, expired in February, and not expired. */
function mixedLines(merchantId: number) {
  return [
    lineOf(merchantId, 0, [
      [JANUARY, true],
      [JANUARY, false],
    ]),
    lineOf(merchantId, 1, [
      [JANUARY, false],
      [JANUARY, false],
    ]),
    lineOf(merchantId, 2, [
      [JANUARY, false],
      [LATER, false],
    ]),
    lineOf(merchantId, 3, [[FEBRUARY, false]]),
    lineOf(merchantId, 4, [[LATER, false]]),
  ]
}

async function get(client: ApiClient, session: Session, url: string) {
  const response = await client
    .get(url)
    .header('Authorization', session.bearer)
    .qs({ environment: 'live' })
  response.assertStatus(200)
  return response.body()
}

/** What the Portal shows of every transaction: the list, each history and each item. */
async function portalView(client: ApiClient, session: Session) {
  const list = await get(client, session, route('collections.transactions.index'))
  const histories = []
  for (const transaction of list.data) {
    const history = await get(
      client,
      session,
      route('collections.history.index', { transaction: transaction.id })
    )
    const items = []
    for (const item of history.data) {
      items.push(
        await get(
          client,
          session,
          route('collections.history.show', { transaction: transaction.id, history: item.id })
        )
      )
    }
    histories.push({ history, items })
  }
  return { list: list.data, histories }
}

async function evidenceRows() {
  return db.from('exchange_evidence').orderBy('id').select('*')
}

test.group('history:purge by partition', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => liftLimit('api'))

  test('a month purged whole shows every item, coverage and history_available exactly as a row-by-row purge does', async ({
    client,
    assert,
  }) => {
    const byRow = await signedInMember()
    await importLines(mixedLines(byRow.merchant.id))
    const rowResult = await purgeExpiredEvidence({ now: NOW, ...ROW_BY_ROW })
    assert.include(rowResult, { due: 5, purged: 5, on_legal_hold: 1, months: 0 })
    const rowView = await portalView(client, byRow)
    const rowEvidence = await evidenceRows()

    await resetState()
    const whole = await signedInMember()
    await importLines(mixedLines(whole.merchant.id))
    const wholeResult = await purgeExpiredEvidence({ now: NOW, ...WHOLE })
    assert.include(wholeResult, { due: 5, purged: 5, on_legal_hold: 1, months: 2 })
    const months = await db.from('evidence_purged_months').orderBy('month').select('events')
    assert.deepEqual(
      months.map((row) => Number(row.events)),
      [4, 1]
    )

    assert.deepEqual(await portalView(client, whole), rowView)
    // Sealed again by the second import (a fresh nonce): compared by presence.
    const stored = (row: Record<string, any>) => ({
      ...row,
      created_at: null,
      snapshot_ciphertext: row.snapshot_ciphertext !== null,
      projection_ciphertext: row.projection_ciphertext !== null,
    })
    const wholeEvidence = await evidenceRows()
    assert.deepEqual(wholeEvidence.map(stored), rowEvidence.map(stored))
    const available = Object.fromEntries(
      rowView.list.map((row: any) => [row.merchant_transaction_id, row.history_available])
    )
    assert.deepEqual(available, {
      'ORD-00000': true,
      'ORD-00001': false,
      'ORD-00002': true,
      'ORD-00003': false,
      'ORD-00004': true,
    })
    const coverage = Object.fromEntries(
      rowView.list.map((row: any, index: number) => [
        row.merchant_transaction_id,
        Object.values(rowView.histories[index].history.meta.coverage),
      ])
    )
    assert.include(coverage['ORD-00001'], 'purged')
    assert.notInclude(coverage['ORD-00001'], 'captured')
    assert.include(coverage['ORD-00002'], 'captured')
  })

  test('events on legal hold are kept byte for byte, and purged row by row once the hold is lifted', async ({
    assert,
  }) => {
    const member = await signedInMember()
    await importLines(mixedLines(member.merchant.id))
    const held = await db.from('exchange_evidence').where('legal_hold', true).select('*')
    assert.lengthOf(held, 1)

    await purgeExpiredEvidence({ now: NOW, ...WHOLE })
    assert.deepEqual(await db.from('exchange_evidence').where('legal_hold', true).select('*'), held)

    await db.from('exchange_evidence').where('id', held[0].id).update({ legal_hold: false })
    const later = await purgeExpiredEvidence({ now: NOW.plus({ days: 1 }), ...WHOLE })
    assert.include(later, { due: 1, purged: 1, months: 0 })
    const row = await db.from('exchange_evidence').where('id', held[0].id).firstOrFail()
    assert.isNull(row.snapshot_ciphertext)
    assert.isNull(row.projection_ciphertext)
    assert.equal(row.purged_at.toISOString(), '2026-03-02T00:00:00.000Z')
  })

  test('two purges racing purge each month once', async ({ assert }) => {
    const member = await signedInMember()
    await importLines(
      Array.from({ length: 60 }, (_, index) =>
        lineOf(member.merchant.id, index, [[index % 2 === 0 ? JANUARY : FEBRUARY, false]])
      )
    )
    const [a, b] = await Promise.all([
      purgeExpiredEvidence({ now: NOW, ...WHOLE }),
      purgeExpiredEvidence({ now: NOW, ...WHOLE }),
    ])
    assert.equal(a.purged + b.purged, 60)
    assert.equal(a.months + b.months, 2)
    const months = await db.from('evidence_purged_months').select('events')
    assert.deepEqual(
      months.map((row) => Number(row.events)),
      [30, 30]
    )
    const left = await db.from('exchange_evidence').whereNull('purged_at').count('* as n')
    assert.equal(Number(left[0].n), 0)
  })

  test("sessions creating the same month's partition at once all succeed, and it exists once", async ({
    assert,
  }) => {
    // Months no test writes into, dropped first so that every call below has to create.
    const months = Array.from(
      { length: 12 },
      (_, index) => `2090-${String(index + 1).padStart(2, '0')}-01`
    )
    for (const month of months) {
      await db.rawQuery(
        `DROP TABLE IF EXISTS evidence_months.bodies_${month.slice(0, 7).replace('-', '_')}`
      )
    }
    const calls = months.flatMap((month) =>
      [1, 2, 3].map(() => db.rawQuery('SELECT evidence_body_partition(?::date)', [month]))
    )
    const outcomes = await Promise.allSettled(calls)
    assert.deepEqual(
      outcomes
        .filter((outcome) => outcome.status === 'rejected')
        .map((outcome) => String((outcome as PromiseRejectedResult).reason)),
      []
    )
    const created = await db.rawQuery(
      `SELECT count(*)::int AS n FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'evidence_bodies'::regclass AND c.relname LIKE 'bodies\\_2090\\_%'`
    )
    assert.equal(created.rows[0].n, 12)
  })

  test('an import racing a purge of the same month: every event it wrote is purged once, by the purge or by the next one', async ({
    assert,
  }) => {
    const member = await signedInMember()
    await importLines(
      Array.from({ length: 40 }, (_, index) =>
        lineOf(member.merchant.id, index, [[JANUARY, false]])
      )
    )
    const late = Array.from({ length: 40 }, (_, index) =>
      lineOf(member.merchant.id, 100 + index, [[JANUARY, false]])
    )
    const [, first] = await Promise.all([
      importLines(late),
      purgeExpiredEvidence({ now: NOW, ...WHOLE }),
    ])
    assert.include(first, { months: 1 })
    const unpurged = await db.from('exchange_evidence').whereNull('purged_at').select('*')
    for (const row of unpurged) assert.isNotNull(row.snapshot_ciphertext)

    const second = await purgeExpiredEvidence({ now: NOW, ...WHOLE })
    assert.equal(first.purged + second.purged, 80)
    assert.include(second, { due: unpurged.length, months: 0 })
    const rows = await evidenceRows()
    assert.lengthOf(rows, 80)
    for (const row of rows) {
      assert.isNotNull(row.purged_at)
      assert.isNull(row.snapshot_ciphertext)
    }
  })

  test('an import into a month already purged keeps its events until the next purge', async ({
    assert,
  }) => {
    const member = await signedInMember()
    await importLines([lineOf(member.merchant.id, 0, [[JANUARY, false]])])
    await purgeExpiredEvidence({ now: NOW, ...WHOLE })
    await importLines([lineOf(member.merchant.id, 1, [[JANUARY, false]])])
    const fresh = await db
      .from('exchange_evidence as e')
      .join('transactions as t', 't.id', 'e.transaction_id')
      .where('t.merchant_transaction_id', 'ORD-00001')
      .firstOrFail()
    assert.isNull(fresh.purged_at)
    assert.isNotNull(fresh.snapshot_ciphertext)
    const next = await purgeExpiredEvidence({ now: NOW, ...WHOLE })
    assert.include(next, { due: 1, purged: 1, months: 0 })
  })
})

test.group('Migration 1110 resumed', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => liftLimit('api'))
  // Whatever a test leaves, the next test file finds evidence split.
  group.each.teardown(async () => {
    await splitEvidence()
    await db.manager.closeAll()
  })

  test('interrupted after its first batch, with rows changed meanwhile, a second run completes the split', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await importLines(mixedLines(member.merchant.id))
    await purgeExpiredEvidence({ now: NOW, ...ROW_BY_ROW })
    const before = await evidenceRows()
    const view = await portalView(client, member)

    await restoreEvidenceTable()
    await db.manager.closeAll()
    assert.deepEqual(await evidenceRows(), before)

    const stop = new AbortController()
    const first = await splitEvidence({
      batchRows: 3,
      signal: stop.signal,
      onProgress: () => stop.abort(),
    })
    assert.deepEqual(first, { copied: 3, done: false })
    // The service (before 1110) writes the table meanwhile: a copied row changes, and a
    // row is added behind the copy's cursor.
    await db.from('exchange_evidence').where('id', before[0].id).update({ legal_hold: true })
    const added = { ...before.at(-1), id: '0'.repeat(26) }
    await db.table('exchange_evidence').insert(added)

    const second = await splitEvidence({ batchRows: 3 })
    assert.isTrue(second.done)
    await db.manager.closeAll()
    assert.deepEqual(await evidenceRows(), [
      added,
      { ...before[0], legal_hold: true },
      ...before.slice(1),
    ])
    const after = await portalView(client, member)
    assert.deepEqual(after.list, view.list)
  })
})

test.group('history:purge by partition stopped by SIGTERM', (group) => {
  group.each.setup(() => resetState())

  test('the month in progress is purged whole, the rest is left for the next run', async ({
    assert,
  }) => {
    const member = await signedInMember()
    // One month of 10,000 events (purged whole) and a small one after it.
    await importLines(
      Array.from({ length: 10_005 }, (_, index) =>
        lineOf(member.merchant.id, index, [[index < 10_000 ? JANUARY : FEBRUARY, false]])
      )
    )
    const lock = await db.transaction()
    const command = startAce(['history:purge'])
    try {
      await lock.rawQuery('LOCK TABLE exchange_evidence IN SHARE MODE')
      await untilWaitingForLockOn('exchange_evidence')
      command.child.kill('SIGTERM')
      await command.stderrMatches(/SIGTERM received/)
    } finally {
      await lock.rollback()
    }
    const stopped = await command.exited(15_000)
    assert.equal(stopped.code, 143, command.stderr())
    assert.include(printedJson(command.stdout()), {
      interrupted: true,
      due: 10_005,
      purged: 10_000,
      months: 1,
    })
    const purged = await db.from('exchange_evidence').whereNotNull('purged_at').count('* as n')
    assert.equal(Number(purged[0].n), 10_000)
    const audits = await db.from('audit_logs').where('action', 'history.purge')
    assert.lengthOf(audits, 1)
    assert.equal(audits[0].reason, 'interrupted')

    const again = await runAce(['history:purge'])
    assert.equal(again.code, 0, again.stderr)
    assert.include(printedJson(again.stdout), { interrupted: false, purged: 5 })
  }).timeout(600_000)
})
