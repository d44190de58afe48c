/*
| `node ace history:reproject [--dry-run]` (decisions.md §5): the projection stored
| beside each snapshot is made again for rows projected with another
| PROJECTION_VERSION; batched, resumable, shared between runs on several hosts; a dry
| run changes nothing.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { runCommand, terminalOutput } from '#tests/helpers/foundation'
import { eventOf, importLines, transactionLine } from '#tests/helpers/collections_import'
import { MerchantFactory } from '#database/factories/merchant_factory'
import { PROJECTION_VERSION } from '#services/collections/history/projection'
import { openProjection, sealProjection } from '#services/collections/history/evidence_snapshot'
import { reprojectHistory } from '#services/collections/history/reproject_history'
import HistoryReproject from '../../../commands/history_reproject.js'

/** Imports one transaction per body; returns the evidence rows in reference order. */
async function importBodies(merchantId: number, bodies: unknown[]) {
  await importLines(
    bodies.map((body, index) =>
      transactionLine(merchantId, {
        merchant_transaction_id: `ORD-${String(index).padStart(4, '0')}`,
        events: [eventOf({ body })],
      })
    )
  )
  return db.from('exchange_evidence').orderBy('captured_at').orderBy('id').select('*')
}

/** Makes rows look projected by an older version, with what that version stored. */
async function makeStale(ids: string[]) {
  for (const id of ids) {
    await db
      .from('exchange_evidence')
      .where('id', id)
      .update({
        projection_version: PROJECTION_VERSION - 1,
        projection_ciphertext: sealProjection(id, {
          capture_status: 'available',
          payload: { stale: true },
          omissions: [],
          delivery: null,
          response: null,
        }),
      })
  }
}

async function storedProjection(id: string) {
  const row = await db.from('exchange_evidence').where('id', id).firstOrFail()
  return {
    version: row.projection_version as number | null,
    projection: row.projection_ciphertext ? openProjection(id, row.projection_ciphertext) : null,
  }
}

test.group('history:reproject', (group) => {
  group.each.setup(() => resetState())

  test('re-projects the rows of another projection version and prints one JSON object', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const rows = await importBodies(merchant.id, [{ ok: true }, { ok: false }, { received: true }])
    await makeStale([rows[0].id, rows[1].id])

    const result = await runCommand(HistoryReproject, [])
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    assert.deepEqual(result.json(), {
      dry_run: false,
      projection_version: PROJECTION_VERSION,
      due: 2,
      reprojected: 2,
      batches: 1,
      interrupted: false,
    })
    const payloads = []
    for (const row of rows) {
      const stored = await storedProjection(row.id)
      assert.equal(stored.version, PROJECTION_VERSION)
      payloads.push(stored.projection?.payload)
    }
    assert.deepEqual(payloads, [{ ok: true }, { ok: false }, { received: true }])
    const audit = await db.from('audit_logs').where('action', 'history.reproject').firstOrFail()
    assert.equal(audit.actor_type, 'system')
    assert.include(audit.metadata, { due: 2, reprojected: 2 })
  })

  test('--dry-run counts what is due and changes nothing; a second run finds nothing', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const rows = await importBodies(merchant.id, [{ ok: true }, { ok: true }])
    await db.from('exchange_evidence').update({ projection_version: null })
    const before = await db.from('exchange_evidence').orderBy('id').select('*')

    const dry = await runCommand(HistoryReproject, ['--dry-run'])
    assert.equal(dry.exitCode, 0, dry.stderr.join('\n'))
    assert.include(dry.json(), { dry_run: true, due: 2, reprojected: 0 })
    assert.deepEqual(await db.from('exchange_evidence').orderBy('id').select('*'), before)

    const first = await runCommand(HistoryReproject, [])
    assert.include(first.json(), { due: 2, reprojected: 2 })
    const second = await runCommand(HistoryReproject, [])
    assert.include(second.json(), { due: 0, reprojected: 0 })
    const stored = await storedProjection(rows[0].id)
    assert.equal(stored.version, PROJECTION_VERSION)
  })

  test('purged rows are not due; rows withheld by their columns store no projection', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    await importLines([
      transactionLine(merchant.id, {
        merchant_transaction_id: 'ORD-PURGED',
        events: [eventOf({ purged_at: '2026-04-01T00:00:00Z' })],
      }),
      transactionLine(merchant.id, {
        merchant_transaction_id: 'ORD-SCHEMA',
        events: [eventOf({ schema_version: 3, body: { ok: true } })],
      }),
    ])
    await db.from('exchange_evidence').update({ projection_version: null })
    const result = await reprojectHistory()
    assert.include(result, { due: 1, reprojected: 1 })
    const rows = await db.from('exchange_evidence').orderBy('schema_version').select('*')
    assert.isNull(rows[0].projection_version)
    assert.equal(rows[1].projection_version, PROJECTION_VERSION)
    assert.isNull(rows[1].projection_ciphertext)
  })

  test('a snapshot that does not open is re-projected as snapshot_unreadable', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const [row] = await importBodies(merchant.id, [{ ok: true }])
    await makeStale([row.id])
    await db.from('exchange_evidence').where('id', row.id).update({ snapshot_ciphertext: 'x.y' })
    await reprojectHistory()
    const { projection } = await storedProjection(row.id)
    assert.equal(projection?.capture_status, 'unavailable')
    assert.isNull(projection?.payload)
    assert.deepEqual(projection?.omissions, [
      { field_path: 'body', reason_code: 'snapshot_unreadable' },
    ])
  })

  test('two runs racing share the work and re-project every row exactly once', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const rows = await importBodies(
      merchant.id,
      Array.from({ length: 150 }, (_, index) => ({ ok: index % 2 === 0 }))
    )
    await db.from('exchange_evidence').update({ projection_version: null })

    // A row re-projected by both runs would count twice in the sum.
    const [a, b] = await Promise.all([
      reprojectHistory({ batchRows: 7 }),
      reprojectHistory({ batchRows: 7 }),
    ])
    assert.equal(a.reprojected + b.reprojected, rows.length)
    const left = await db.from('exchange_evidence').whereNull('projection_version').count('* as n')
    assert.equal(Number(left[0].n), 0)
  })

  test('a row locked by another host is skipped, not waited for, and done by a later run', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const rows = await importBodies(merchant.id, [{ ok: true }, { ok: true }])
    await db.from('exchange_evidence').update({ projection_version: null })
    const other = await db.transaction()
    try {
      await other.rawQuery('SELECT id FROM exchange_evidence WHERE id = ? FOR UPDATE', [rows[0].id])
      assert.include(await reprojectHistory(), { due: 2, reprojected: 1 })
    } finally {
      await other.rollback()
    }
    assert.include(await reprojectHistory(), { due: 1, reprojected: 1 })
  })

  test('on a terminal, progress (rows done of due) goes to standard error', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    await importBodies(merchant.id, [{ ok: true }])
    await db.from('exchange_evidence').update({ projection_version: null })
    const terminal = terminalOutput()
    const result = await runCommand(HistoryReproject, [], (command) => {
      command.progressOutput = terminal.stream
    })
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    assert.lengthOf(result.stdout, 1)
    assert.match(terminal.text(), /1 of 1 rows \(100\.0 %\)/)
  })
})
