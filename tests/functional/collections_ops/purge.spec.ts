/*
| `node ace history:purge [--dry-run]` (portal-api.md › Collections, "History
| behavior"; decisions.md §4): evidence past retain_until and not on legal hold loses
| its snapshot and gets purged_at, the row stays; runs from several hosts share the
| work and purge each row once; a dry run changes nothing.
*/
import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { resetState, setNow } from '#tests/helpers/database'
import { runCommand } from '#tests/helpers/foundation'
import { eventOf, importLines, transactionLine } from '#tests/helpers/collections_import'
import { MerchantFactory } from '#database/factories/merchant_factory'
import { purgeExpiredEvidence } from '#services/collections/history/purge_history'
import HistoryPurge from '../../../commands/history_purge.js'

const NOW = '2027-06-01T00:00:00Z'
const PAST = '2027-05-31T23:59:59Z'
const FUTURE = '2027-06-01T00:00:01Z'

/** Imports one transaction per event given as [retain_until, legal_hold]. */
async function importEvidence(merchantId: number, events: Array<[string, boolean]>) {
  await importLines(
    events.map(([retainUntil, legalHold], index) =>
      transactionLine(merchantId, {
        merchant_transaction_id: `ORD-${index}`,
        events: [
          eventOf({
            body: { acknowledged: true },
            retain_until: retainUntil,
            legal_hold: legalHold,
          }),
        ],
      })
    )
  )
}

async function evidenceByReference() {
  const rows = await db
    .from('exchange_evidence as e')
    .join('transactions as t', 't.id', 'e.transaction_id')
    .orderBy('t.merchant_transaction_id')
    .select('t.merchant_transaction_id as reference', 'e.*')
  return new Map(rows.map((row) => [row.reference as string, row]))
}

test.group('history:purge', (group) => {
  group.each.setup(() => resetState())

  test('purges evidence past retention: snapshot and stored projection removed, purged_at set, row kept', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    await importEvidence(merchant.id, [
      [PAST, false],
      [NOW, false],
      [FUTURE, false],
    ])
    setNow(NOW)

    const result = await runCommand(HistoryPurge, [])
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    assert.include(result.json(), { dry_run: false, due: 2, purged: 2, on_legal_hold: 0 })

    const rows = await evidenceByReference()
    assert.equal(rows.size, 3)
    for (const reference of ['ORD-0', 'ORD-1']) {
      const row = rows.get(reference)!
      assert.isNull(row.snapshot_ciphertext)
      assert.isNull(row.snapshot_size)
      assert.isNull(row.projection_ciphertext)
      assert.equal(row.purged_at.toISOString(), '2027-06-01T00:00:00.000Z')
      assert.equal(row.kind, 'merchant_notification.response')
      assert.equal(row.http_status, null)
    }
    assert.isNotNull(rows.get('ORD-2')!.snapshot_ciphertext)
    assert.isNotNull(rows.get('ORD-2')!.projection_ciphertext)
    assert.isNull(rows.get('ORD-2')!.purged_at)
  })

  test('evidence on legal hold is kept past its retention', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    await importEvidence(merchant.id, [
      [PAST, true],
      [PAST, false],
    ])
    const result = await purgeExpiredEvidence({ now: DateTime.fromISO(NOW) })
    assert.include(result, { due: 1, purged: 1, on_legal_hold: 1 })
    const rows = await evidenceByReference()
    assert.isNotNull(rows.get('ORD-0')!.snapshot_ciphertext)
    assert.isNull(rows.get('ORD-0')!.purged_at)
    assert.isNull(rows.get('ORD-1')!.snapshot_ciphertext)
  })

  test('--dry-run counts what is due and changes nothing', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    await importEvidence(merchant.id, [
      [PAST, false],
      [PAST, true],
    ])
    setNow(NOW)
    const before = await db.from('exchange_evidence').orderBy('id').select('*')

    const result = await runCommand(HistoryPurge, ['--dry-run'])
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    assert.include(result.json(), {
      dry_run: true,
      due: 1,
      purged: 0,
      on_legal_hold: 1,
      partitions_dropped: 0,
    })
    assert.deepEqual(await db.from('exchange_evidence').orderBy('id').select('*'), before)
    assert.lengthOf(await db.from('audit_logs').where('action', 'history.purge'), 0)
  })

  test('a second run finds nothing to do, and every run is audited as a system job', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    await importEvidence(merchant.id, [[PAST, false]])
    setNow(NOW)
    const first = await runCommand(HistoryPurge, [])
    const second = await runCommand(HistoryPurge, [])
    assert.include(first.json(), { purged: 1 })
    assert.include(second.json(), { due: 0, purged: 0 })
    const audits = await db.from('audit_logs').where('action', 'history.purge').orderBy('id')
    assert.lengthOf(audits, 2)
    assert.equal(audits[0].actor_type, 'system')
    assert.equal(audits[0].outcome, 'success')
    assert.include(audits[0].metadata, { purged: 1 })
    assert.include(audits[1].metadata, { purged: 0 })
  })

  test('two purges racing share the work and purge every row exactly once', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const due = 300
    await importEvidence(
      merchant.id,
      Array.from({ length: due + 20 }, (_, index) => [index < due ? PAST : FUTURE, false])
    )
    const now = DateTime.fromISO(NOW)

    // A row purged by both runs would count twice in the sum.
    const [a, b] = await Promise.all([
      purgeExpiredEvidence({ now, batchSize: 7 }),
      purgeExpiredEvidence({ now, batchSize: 7 }),
    ])
    assert.equal(a.purged + b.purged, due)
    const rows = await db.from('exchange_evidence').whereNotNull('purged_at').count('* as total')
    assert.equal(Number(rows[0].total), due)
    const left = await db
      .from('exchange_evidence')
      .whereNull('purged_at')
      .where('retain_until', '<=', now.toJSDate())
      .count('* as total')
    assert.equal(Number(left[0].total), 0)
    const audits = await db.from('audit_logs').where('action', 'history.purge')
    assert.lengthOf(audits, 2)
    assert.equal(
      audits.reduce((sum, audit) => sum + Number(audit.metadata.purged), 0),
      due
    )
  })

  test('a row locked by another host is skipped, not waited for, and purged by a later run', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    await importEvidence(merchant.id, [
      [PAST, false],
      [PAST, false],
    ])
    const now = DateTime.fromISO(NOW)
    const locked = await db.from('exchange_evidence').orderBy('id').firstOrFail()

    const other = await db.transaction()
    try {
      await other.rawQuery('SELECT id FROM exchange_evidence WHERE id = ? FOR UPDATE', [locked.id])
      const result = await purgeExpiredEvidence({ now })
      assert.include(result, { due: 2, purged: 1 })
    } finally {
      await other.rollback()
    }
    const again = await purgeExpiredEvidence({ now })
    assert.include(again, { due: 1, purged: 1 })
    const row = await db.from('exchange_evidence').where('id', locked.id).firstOrFail()
    assert.isNotNull(row.purged_at)
  })
})
