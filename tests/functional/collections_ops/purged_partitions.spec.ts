/*
| history:purge drops the partitions of months purged whole (purged_partitions.ts):
| detached concurrently and dropped, never made again by an import of the month's
| events (stored loose), one run at a time, and a detach cut between its two
| transactions is finished by the next run. Observed in the catalog and through what
| the history shows, never timing.
*/
import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { resetState, untilSomeBackendWaitsForALock } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { eventOf, importLines, transactionLine } from '#tests/helpers/collections_import'
import { purgeExpiredEvidence } from '#services/collections/history/purge_history'
import { forgetBodyPartitions } from '#services/collections/history/evidence_storage'
import { DROP_LOCK } from '#services/collections/history/purged_partitions'

const NOW = DateTime.fromISO('2026-03-01T00:00:00Z')
const JANUARY_TABLE = 'evidence_months.bodies_2026_01'
/** Every ended month with an event due is purged whole. */
const WHOLE = { now: NOW, wholeMonthEvents: 1 }

/** A transaction with one event kept until mid-January 2026. */
function januaryLine(merchantId: number, index: number) {
  return transactionLine(merchantId, {
    merchant_transaction_id: `ORD-${String(index).padStart(5, '0')}`,
    events: [
      eventOf({
        kind: 'merchant_request.validated',
        captured_at: '2025-12-01T10:00:00.000+08:00',
        content_type: 'application/json',
        body: { merchant_transaction_id: `ORD-${index}` },
        retain_until: '2026-01-15T00:00:00Z',
      }),
    ],
  })
}

/** The month tables of January 2026: whether one exists, and whether it is a partition. */
async function januaryTable() {
  const result = await db.rawQuery(
    `SELECT i.inhrelid IS NOT NULL AS attached, coalesce(i.inhdetachpending, false) AS pending
       FROM pg_class c
       LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
      WHERE c.oid = to_regclass(?)`,
    [JANUARY_TABLE]
  )
  return result.rows[0] as { attached: boolean; pending: boolean } | undefined
}

/** A transaction of the test's own that keeps reading January's partition until released. */
async function readingJanuary() {
  const reader = await db.transaction()
  await reader.rawQuery(`SELECT count(*) FROM ${JANUARY_TABLE}`)
  return () => reader.rollback()
}

/** Holds the drop of partitions as another run would, until let go. */
async function holdTheDrop() {
  const other = await db.transaction()
  await other.rawQuery('SELECT pg_advisory_xact_lock(?)', [DROP_LOCK])
  return () => other.rollback()
}

test.group('history:purge drops the partitions of months purged whole', (group) => {
  group.each.setup(() => resetState())

  test('a month purged whole loses its partition, counted in the result and the audit (partitions_dropped); its events imported later are stored loose, shown, and purged by the next run, and the partition is not made again', async ({
    assert,
  }) => {
    const member = await signedInMember()
    await importLines([januaryLine(member.merchant.id, 0)])
    assert.deepEqual(await januaryTable(), { attached: true, pending: false })

    const first = await purgeExpiredEvidence(WHOLE)
    assert.include(first, { purged: 1, months: 1, partitions_dropped: 1 })
    assert.isUndefined(await januaryTable())
    const [audit] = await db.from('audit_logs').where('action', 'history.purge')
    assert.include(audit.metadata, { months: 1, partitions_dropped: 1 })

    // As a new import process would: it knows no partition yet.
    forgetBodyPartitions()
    await importLines([januaryLine(member.merchant.id, 1)])
    assert.isUndefined(await januaryTable())
    const late = await db
      .from('exchange_evidence as e')
      .join('transactions as t', 't.id', 'e.transaction_id')
      .where('t.merchant_transaction_id', 'ORD-00001')
      .firstOrFail()
    assert.isNull(late.purged_at)
    assert.isNotNull(late.snapshot_ciphertext)

    const second = await purgeExpiredEvidence(WHOLE)
    assert.include(second, { due: 1, purged: 1, months: 0, partitions_dropped: 0 })
    const left = await db.from('exchange_evidence').whereNull('purged_at').count('* as n')
    assert.equal(Number(left[0].n), 0)
  })

  test('a purge that finds another run dropping partitions leaves them to it and counts none; the next run drops them and counts them', async ({
    assert,
  }) => {
    const member = await signedInMember()
    await importLines([januaryLine(member.merchant.id, 0)])
    const letGo = await holdTheDrop()
    try {
      const result = await purgeExpiredEvidence(WHOLE)
      assert.include(result, { purged: 1, months: 1, partitions_dropped: 0 })
      assert.deepEqual(await januaryTable(), { attached: true, pending: false })
    } finally {
      await letGo()
    }
    const next = await purgeExpiredEvidence(WHOLE)
    assert.include(next, { purged: 0, months: 0, partitions_dropped: 1 })
    assert.isUndefined(await januaryTable())
  })

  test('a detach cut between its two transactions (a reader held the month past lock_timeout) is finished by the next run; reads of the bodies never wait for it', async ({
    assert,
  }) => {
    const member = await signedInMember()
    await importLines([januaryLine(member.merchant.id, 0)])
    // The month is purged whole by a run that cannot drop it (another holds the drop).
    const letGo = await holdTheDrop()
    await purgeExpiredEvidence(WHOLE).finally(letGo)

    const releaseReader = await readingJanuary()
    try {
      let purgeEnded = false
      const purge = purgeExpiredEvidence(WHOLE).finally(() => (purgeEnded = true))
      await untilSomeBackendWaitsForALock({ query: '%DETACH PARTITION%' })
      // While the detach waits for the reader, the bodies' table is read without waiting.
      await db.rawQuery('SELECT count(*) FROM evidence_bodies')
      assert.isFalse(purgeEnded)
      await purge
      // The detach's first transaction committed; its wait for the reader gave up.
      assert.deepEqual(await januaryTable(), { attached: true, pending: true })
    } finally {
      await releaseReader()
    }

    await purgeExpiredEvidence(WHOLE)
    assert.isUndefined(await januaryTable())
  })
})
