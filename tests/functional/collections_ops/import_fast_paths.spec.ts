/*
| The import's direct paths (bench/README.md › collections_import.ts): a batch of new
| transactions is COPYed straight into `transactions`, the events of transactions a
| batch created straight into `exchange_evidence`, each under a savepoint that falls
| back to the staging merge. These tests hold the fallbacks to the rules of the
| staging merge, the rollups kept by triggers exact, and the values computed outside
| PostgreSQL (retain_until, the sealed snapshot) equal to what it would make, and the
| snapshot sealed compactly, opening as the encrypter's text-format seals still do.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import encryption from '@adonisjs/core/services/encryption'
import { resetState } from '#tests/helpers/database'
import { assertRollupsExact } from '#tests/helpers/reporting'
import { eventOf, failureOf, importLines, transactionLine } from '#tests/helpers/collections_import'
import { MerchantFactory } from '#database/factories/merchant_factory'
import { openSnapshot, sealSnapshot } from '#services/collections/history/evidence_snapshot'
import {
  COMPACT_SEAL_MARKER,
  COMPACT_SEAL_OVERHEAD,
} from '#services/collections/history/evidence_cipher'
import { retainUntilDefault } from '#services/collections/import/import_retention'
import { parseTimestamp } from '#validators/rules/timestamp'

const EVENT_ID = '01KJKHZEBRZRA2A3QBT3R6CWDN'

test.group('collections:import › direct paths', (group) => {
  group.each.setup(() => resetState())

  test('a first import goes straight in and keeps the rollups exact', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const lines = Array.from({ length: 7 }, (_, index) =>
      transactionLine(merchant.id, {
        merchant_transaction_id: `ORD-${index}`,
        amount: index === 3 ? null : `${index + 1}00.00`,
        payment_status: ['PAID', 'PENDING', 'REJECTED'][index % 3],
        created_at: `2026-0${(index % 3) + 1}-28T23:30:00-02:00`,
        events: [eventOf({ body: { n: index } }), eventOf({ kind: 'internal', body_text: 'x' })],
      })
    )
    const result = await importLines(lines, { batchLines: 3 })
    assert.include(result, {
      transactions_created: 7,
      transactions_unchanged: 0,
      events_created: 14,
      events_unchanged: 0,
    })
    const stored = await db
      .from('exchange_evidence as e')
      .join('transactions as t', 't.id', 'e.transaction_id')
      .where('t.merchant_id', merchant.id)
      .select('e.id', 'e.snapshot_ciphertext', 't.merchant_transaction_id')
      .orderBy('e.id')
    assert.lengthOf(stored, 14)
    for (const row of stored) {
      assert.isNotNull(openSnapshot(row.id, row.snapshot_ciphertext))
    }
    await assertRollupsExact(assert, merchant.id)
  })

  test('a batch mixing stored and new references takes the upsert; later new batches go straight in again', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    await importLines([
      transactionLine(merchant.id, {
        merchant_transaction_id: 'ORD-1',
        amount: '10.00',
        updated_at: '2026-03-02T00:00:00Z',
      }),
    ])
    const line = (reference: string, overrides = {}) =>
      transactionLine(merchant.id, {
        merchant_transaction_id: reference,
        events: [eventOf({ body: { reference } })],
        ...overrides,
      })
    const result = await importLines(
      [
        // Older than the stored row: kept as stored.
        line('ORD-1', { amount: '99.00', updated_at: '2026-03-01T00:00:00Z' }),
        line('ORD-2'),
        line('ORD-3'),
        line('ORD-4'),
        line('ORD-5', { payment_status: 'REJECTED' }),
        line('ORD-6'),
      ],
      { batchLines: 3 }
    )
    assert.include(result, {
      transactions: 6,
      transactions_created: 5,
      transactions_updated: 0,
      transactions_unchanged: 1,
      // ORD-1's event is another kind than the stored one: a new event of it.
      events_created: 6,
      events_unchanged: 0,
    })
    const rows = await db
      .from('transactions')
      .where('merchant_id', merchant.id)
      .orderBy('merchant_transaction_id')
    assert.deepEqual(
      rows.map((row) => [row.merchant_transaction_id, row.amount, row.status]),
      [
        ['ORD-1', '10.00', 'PAID'],
        ['ORD-2', '1500.00', 'PAID'],
        ['ORD-3', '1500.00', 'PAID'],
        ['ORD-4', '1500.00', 'PAID'],
        ['ORD-5', '1500.00', 'REJECTED'],
        ['ORD-6', '1500.00', 'PAID'],
      ]
    )
    const evidence = await db
      .from('exchange_evidence')
      .where('merchant_id', merchant.id)
      .count('* as total')
      .first()
    assert.equal(Number(evidence?.total), 7)
    await assertRollupsExact(assert, merchant.id)

    // Newer now: the whole batch takes the upsert and the update is counted once.
    const again = await importLines(
      [line('ORD-1', { amount: '11.00', updated_at: '2026-03-03T00:00:00Z' }), line('ORD-7')],
      { batchLines: 3 }
    )
    assert.include(again, { transactions_created: 1, transactions_updated: 1 })
    await assertRollupsExact(assert, merchant.id)
  })

  test('an event id on two new lines of one batch is refused at the later line; the earlier one is kept', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const error = await failureOf(
      importLines([
        transactionLine(merchant.id, {
          merchant_transaction_id: 'ORD-1',
          events: [eventOf({ id: EVENT_ID, body: { first: true } })],
        }),
        transactionLine(merchant.id, {
          merchant_transaction_id: 'ORD-2',
          events: [eventOf({ id: EVENT_ID })],
        }),
        transactionLine(merchant.id, { merchant_transaction_id: 'ORD-3' }),
      ])
    )
    assert.equal(error.line, 2)
    assert.match(error.message, new RegExp(`${EVENT_ID} is already stored for another transaction`))
    const rows = await db.from('transactions').where('merchant_id', merchant.id)
    assert.deepEqual(
      rows.map((row) => row.merchant_transaction_id),
      ['ORD-1']
    )
    const stored = await db.from('exchange_evidence').where('id', EVENT_ID).firstOrFail()
    assert.equal(stored.transaction_id, rows[0].id)
    assert.deepEqual(openSnapshot(EVENT_ID, stored.snapshot_ciphertext), {
      kind: 'json',
      text: '{"first":true}',
    })
    await assertRollupsExact(assert, merchant.id)
  })

  test('the default retain_until of a direct COPY equals PostgreSQL captured_at + months (UTC)', async ({
    assert,
  }) => {
    const cases: Array<[string, number]> = [
      ['2026-01-31T10:00:00.123456Z', 1],
      ['2024-01-31T23:59:59.999999Z', 1],
      ['2023-03-31T00:00:00Z', 11],
      ['2024-02-29T12:00:00+08:00', 12],
      ['2026-03-01T01:00:00+08:00', 12],
      ['2026-12-31T23:30:00-02:00', 2],
      ['1969-12-31T23:59:59.5Z', 13],
      ['0001-01-01T14:00:00+14:00', 3],
      ['9998-12-15T00:00:00Z', 12],
      ['2026-05-31T00:00:00Z', 1200],
    ]
    for (const [value, months] of cases) {
      const computed = retainUntilDefault(parseTimestamp(value)!, months)
      assert.isNotNull(computed, value)
      const { rows } = await db.rawQuery(
        `SELECT (?::timestamptz = ?::timestamptz + make_interval(months => ?::int)) AS same`,
        [computed, value, months]
      )
      assert.isTrue(rows[0].same, `${value} + ${months} months: ${computed}`)
    }
  })

  test('an event whose default retain_until would pass year 9999 keeps the last instant of 9999', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const result = await importLines([
      transactionLine(merchant.id, {
        events: [eventOf({ captured_at: '9999-06-01T00:00:00Z' })],
      }),
    ])
    assert.include(result, { transactions_created: 1, events_created: 1 })
    const { rows } = await db.rawQuery(
      `SELECT to_char(retain_until AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS until FROM exchange_evidence`
    )
    assert.deepEqual(rows, [{ until: '9999-12-31 23:59:59.999999' }])
  })

  test('a snapshot sealed by the import is compact and opens under its purpose only; text-format seals still open', ({
    assert,
  }) => {
    const body = 'j{"a":"\u2028 é \\" \\\\"}'
    const sealed = sealSnapshot(EVENT_ID, { kind: 'json', text: body.slice(1) })
    assert.equal(sealed.size, sealed.ciphertext.length)
    assert.deepEqual(openSnapshot(EVENT_ID, sealed.ciphertext), {
      kind: 'json',
      text: body.slice(1),
    })
    assert.isNull(openSnapshot('01KJKHZEBRZRA2A3QBT3R6CWDP', sealed.ciphertext))
    // The compact envelope: a marker byte, the encoding, IV, tag, then the ciphertext.
    assert.equal(sealed.ciphertext[0], COMPACT_SEAL_MARKER)
    assert.isAtMost(sealed.size, Buffer.byteLength(body) + COMPACT_SEAL_OVERHEAD)
    // What the app encrypter sealed (every row stored before migration 1100) still opens.
    const legacy = encryption.encrypt(body, undefined, `exchange-evidence:${EVENT_ID}`)
    for (const stored of [legacy, Buffer.from(legacy)]) {
      assert.deepEqual(openSnapshot(EVENT_ID, stored), { kind: 'json', text: body.slice(1) })
    }
    // Two seals of the same body differ (fresh IVs).
    assert.notDeepEqual(
      sealSnapshot(EVENT_ID, { kind: 'json', text: '{}' }).ciphertext.subarray(2, 14),
      sealSnapshot(EVENT_ID, { kind: 'json', text: '{}' }).ciphertext.subarray(2, 14)
    )
  })
})
