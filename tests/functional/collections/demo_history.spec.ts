/*
| The whole demo year (seedDemoCollections: every kind, legacy statuses, a corrupt and
| a purged snapshot, loaded through the import) read back through the four routes:
| every response has the contract's shapes and values, and nothing outside the
| allowlists leaves the service.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { liftLimit } from '#tests/helpers/limits'
import { seedDemoCollections } from '#database/demo/demo_collections'
import { openSnapshot } from '#services/collections/history/evidence_snapshot'
import {
  CAPTURE_STATUSES,
  REASON_CODES,
  SYNC_BODY_CAPTURE_STATUSES,
} from '#models/collections_vocabulary'
import { route } from '#tests/helpers/routes'
import { signedInMember } from '#tests/helpers/portal'

const ITEM_KEYS = [
  'id',
  'transaction_id',
  'environment',
  'event_type',
  'direction',
  'captured_at',
  'capture_format',
  'capture_status',
  'event_id',
  'attempt_number',
  'http_status',
  'delivery',
  'response',
  'payload',
  'omissions',
  'retain_until',
  'purged_at',
]
const TRANSACTION_KEYS = [
  'id',
  'merchant_transaction_id',
  'environment',
  'amount',
  'currency',
  'status',
  'payment_brand',
  'payment_method',
  'created_at',
  'updated_at',
  'history_available',
]
const UTC_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

/** The fields of a listed transaction and of a history item that these tests read. */
interface ListedTransaction {
  id: number
  status: string
  amount: string | null
  payment_method: null
  created_at: string | null
  history_available: boolean
}
interface HistoryItem {
  id: string
  capture_status: string
  omissions: Array<{ field_path: string; reason_code: string }>
}

test.group('Collections › the demo year through the read routes', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => liftLimit('api'))

  test('every transaction and history item has the contract shape; nothing else leaks', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await seedDemoCollections(admin.merchant.id)
    const statuses = new Set<string>()
    for (const environment of ['live', 'test'] as const) {
      const stored = await db
        .from('transactions')
        .where({ merchant_id: admin.merchant.id, environment })
        .count('* as total')
        .first()
      const listed: ListedTransaction[] = []
      for (let page = 1; ; page++) {
        const response = await client
          .get(route('collections.transactions.index'))
          .header('Authorization', admin.bearer)
          .qs({ environment, page, per_page: 100 })
        response.assertStatus(200)
        assert.equal(response.body().meta.total, Number(stored.total))
        listed.push(...response.body().data)
        if (page >= response.body().meta.last_page) break
      }
      assert.lengthOf(listed, Number(stored.total))
      for (const transaction of listed) {
        assert.sameOrderedMembers(Object.keys(transaction), TRANSACTION_KEYS)
        assert.include(['PAID', 'PENDING', 'REJECTED'], transaction.status)
        assert.isTrue(transaction.amount === null || /^\d+\.\d{2}$/.test(transaction.amount))
        assert.isNull(transaction.payment_method)
        if (transaction.created_at !== null) assert.match(transaction.created_at, UTC_MICROS)
      }
      for (const transaction of listed.filter((item) => item.history_available).slice(0, 15)) {
        const detail = await client
          .get(route('collections.transactions.show', { transaction: transaction.id }))
          .header('Authorization', admin.bearer)
          .qs({ environment })
        assert.deepEqual(detail.body().data, transaction)
        const history = await client
          .get(route('collections.history.index', { transaction: transaction.id }))
          .header('Authorization', admin.bearer)
          .qs({ environment, per_page: 100 })
        history.assertStatus(200)
        const body = history.body()
        assert.isAbove(body.data.length, 0)
        for (const item of body.data) {
          assert.sameOrderedMembers(Object.keys(item), ITEM_KEYS)
          assert.include([...CAPTURE_STATUSES], item.capture_status)
          assert.match(item.id, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/)
          assert.match(item.captured_at, UTC_MICROS)
          for (const omission of item.omissions) {
            assert.include([...REASON_CODES], omission.reason_code)
          }
          const capture = item.response?.body_capture_status ?? item.delivery?.body_capture_status
          if (capture) assert.include([...SYNC_BODY_CAPTURE_STATUSES], capture)
          statuses.add(item.capture_status)
        }
        const one = await client
          .get(
            route('collections.history.show', {
              transaction: transaction.id,
              history: body.data[0].id,
            })
          )
          .header('Authorization', admin.bearer)
          .qs({ environment })
        assert.deepEqual(one.body().data, body.data[0])
        const text = JSON.stringify(body)
        for (const secret of ['sk_live', 'https://', 'http://', '@', 'api_key']) {
          assert.notInclude(text, secret)
        }
      }
    }
    assert.includeMembers([...statuses], ['available', 'omitted'])
  })

  test('the demo corrupt snapshot and purged record read as unavailable and purged', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await seedDemoCollections(admin.merchant.id)
    const purged = await db
      .from('exchange_evidence')
      .where('merchant_id', admin.merchant.id)
      .whereNotNull('purged_at')
      .firstOrFail()
    const response = await client
      .get(
        route('collections.history.show', {
          transaction: purged.transaction_id,
          history: purged.id,
        })
      )
      .header('Authorization', admin.bearer)
      .qs({ environment: purged.environment })
    response.assertStatus(200)
    assert.equal(response.body().data.capture_status, 'purged')
    assert.isNull(response.body().data.payload)

    // The demo's corrupt snapshot: the one stored ciphertext that does not open.
    const sealed = await db
      .from('exchange_evidence')
      .where('merchant_id', admin.merchant.id)
      .whereNotNull('snapshot_ciphertext')
      .select('id', 'transaction_id', 'environment', 'snapshot_ciphertext')
    const corrupt = sealed.filter((row) => openSnapshot(row.id, row.snapshot_ciphertext) === null)
    assert.lengthOf(corrupt, 1)
    const history = await client
      .get(route('collections.history.index', { transaction: corrupt[0].transaction_id }))
      .header('Authorization', admin.bearer)
      .qs({ environment: corrupt[0].environment, per_page: 100 })
    history.assertStatus(200)
    const items = history.body().data as HistoryItem[]
    const item = items.find((candidate) => candidate.id === corrupt[0].id)!
    assert.equal(item.capture_status, 'unavailable')
    assert.deepEqual(item.omissions, [{ field_path: 'body', reason_code: 'snapshot_unreadable' }])
    // Only its own item is affected.
    assert.deepEqual(
      items
        .filter((other) => other.omissions.some((o) => o.reason_code === 'snapshot_unreadable'))
        .map((other) => other.id),
      [corrupt[0].id]
    )
  })
})
