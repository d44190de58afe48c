/*
| Migration 1100 (stored_seal_format.ts): evidence seals converted in place between the
| encrypter's text format and the compact bytes, in committed batches that an
| interruption keeps and a second run completes, with history reading the same before,
| during and after; seals that do not open kept byte for byte; a seal the service
| changes during the conversion (a purge) is converted as it is at the end.
*/
import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import encryption from '@adonisjs/core/services/encryption'
import { DateTime } from 'luxon'
import { resetState } from '#tests/helpers/database'
import { signedInMember, type Session } from '#tests/helpers/portal'
import { liftLimit } from '#tests/helpers/limits'
import { importTransactions, merchantRequest } from '#tests/helpers/collections'
import { route } from '#tests/helpers/routes'
import { convertStoredSeals } from '#services/collections/history/stored_seal_format'
import { COMPACT_SEAL_MARKER } from '#services/collections/history/evidence_cipher'
import { purgeExpiredEvidence } from '#services/collections/history/purge_history'

const TRANSACTIONS = 12

async function columnType(column: string) {
  const result = await db.rawQuery(
    `SELECT data_type FROM information_schema.columns
      WHERE table_name = 'exchange_evidence' AND column_name = ?`,
    [column]
  )
  return result.rows[0]?.data_type
}

/**
 * New connections, as the restart after a migration gives: statements prepared before
 * a column changed type are refused (README › Deployment, connection poolers).
 */
async function newConnections() {
  await db.manager.closeAll()
}

/** Every history page of the imported transactions, as the Portal reads them. */
async function everyHistory(client: ApiClient, session: Session, ids: number[]) {
  const pages = []
  for (const id of ids) {
    const response = await client
      .get(route('collections.history.index', { transaction: id }))
      .header('Authorization', session.bearer)
      .qs({ environment: 'live' })
    response.assertStatus(200)
    pages.push({ data: response.body().data, coverage: response.body().meta.coverage })
  }
  return pages
}

async function seals() {
  return db
    .from('exchange_evidence')
    .orderBy('id')
    .select('id', 'snapshot_ciphertext', 'snapshot_size', 'projection_ciphertext', 'purged_at')
}

test.group('Evidence seals converted in place (migration 1100)', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => liftLimit('api'))
  // Whatever a test leaves, the next test file finds the columns the code expects.
  group.each.teardown(async () => {
    await convertStoredSeals('bytes')
    await newConnections()
  })

  test('text-format seals become compact bytes in resumable batches; history reads the same throughout', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await importTransactions(
      Array.from({ length: TRANSACTIONS }, (_, index) => ({
        merchant_id: admin.merchant.id,
        environment: 'live' as const,
        merchant_transaction_id: `ORD-${index}`,
        events: [
          merchantRequest(`ORD-${index}`, '2026-03-01T10:00:00.120+08:00'),
          {
            kind: 'merchant_notification.response',
            captured_at: '2026-03-01T10:05:01+08:00',
            http_status: 200,
            body_text: `thanks ${index}`,
            retain_until: '2026-04-01T00:00:00Z',
          },
        ],
      }))
    )
    const ids = stored.map((transaction) => transaction.id)
    const corrupt = stored[0].events[0]
    await db
      .from('exchange_evidence')
      .where('id', corrupt)
      .update({
        snapshot_ciphertext: Buffer.from('garbage'),
        projection_ciphertext: Buffer.from('garbage too'),
      })
    const compactSeals = await seals()
    const history = await everyHistory(client, admin, ids)

    // Back to the text format (down), as a database written before 1100 holds it.
    assert.deepEqual(await convertStoredSeals('text'), { converted: 2 * TRANSACTIONS, done: true })
    assert.equal(await columnType('snapshot_ciphertext'), 'text')
    await newConnections()
    const text = await seals()
    const request = text.find((row) => row.id === stored[1].events[0])!
    assert.match(
      encryption.decrypt(request.snapshot_ciphertext, `exchange-evidence:${request.id}`)!,
      /^j\{/
    )
    assert.equal(request.snapshot_size, Buffer.byteLength(request.snapshot_ciphertext))
    assert.deepEqual(await everyHistory(client, admin, ids), history)

    // Up, interrupted after its first batch of 5 rows: they are kept, nothing else moved.
    const stop = new AbortController()
    const first = await convertStoredSeals('bytes', {
      batchRows: 5,
      signal: stop.signal,
      onProgress: () => stop.abort(),
    })
    assert.deepEqual(first, { converted: 5, done: false })
    assert.equal(await columnType('snapshot_ciphertext'), 'text')
    assert.equal(await columnType('snapshot_ciphertext_next'), 'bytea')
    assert.deepEqual(await everyHistory(client, admin, ids), history)

    // Meanwhile the service purges the replies, converted or not.
    const purge = await purgeExpiredEvidence({ now: DateTime.fromISO('2026-05-01T00:00:00Z') })
    assert.equal(purge.purged, TRANSACTIONS)
    const purged = await everyHistory(client, admin, ids)

    // Run again: the rest is converted, the columns are swapped.
    const second = await convertStoredSeals('bytes', { batchRows: 5 })
    assert.isTrue(second.done)
    assert.equal(await columnType('snapshot_ciphertext'), 'bytea')
    await newConnections()
    assert.isUndefined(await columnType('snapshot_ciphertext_next'))
    assert.deepEqual(await everyHistory(client, admin, ids), purged)
    assert.deepEqual(await convertStoredSeals('bytes'), { converted: 0, done: true })

    const after = await seals()
    for (const [index, row] of after.entries()) {
      const before = compactSeals[index]
      assert.equal(row.id, before.id)
      if (row.purged_at !== null) {
        assert.isNull(row.snapshot_ciphertext)
        assert.isNull(row.projection_ciphertext)
      } else if (row.id === corrupt) {
        assert.deepEqual(row.snapshot_ciphertext, Buffer.from('garbage'))
        assert.deepEqual(row.projection_ciphertext, Buffer.from('garbage too'))
      } else {
        assert.equal(row.snapshot_ciphertext[0], COMPACT_SEAL_MARKER)
        assert.equal(row.projection_ciphertext[0], COMPACT_SEAL_MARKER)
        assert.equal(row.snapshot_size, row.snapshot_ciphertext.length)
        assert.isBelow(row.snapshot_size, text[index].snapshot_size)
      }
    }
  })

  test('a small body: its stored projection is not larger than the body', async ({ assert }) => {
    const admin = await signedInMember()
    // Only allowlisted fields: the projection keeps the whole body.
    const body = { merchant_transaction_id: 'ORD-1', amount: '1500.00', currency: 'PHP' }
    await importTransactions([
      {
        merchant_id: admin.merchant.id,
        environment: 'live',
        merchant_transaction_id: 'ORD-1',
        events: [
          {
            ...merchantRequest('ORD-1', '2026-03-01T10:00:00.120+08:00'),
            body,
          },
        ],
      },
    ])
    const [row] = await seals()
    assert.isAtMost(row.projection_ciphertext.length, Buffer.byteLength(JSON.stringify(body)))
  })
})
