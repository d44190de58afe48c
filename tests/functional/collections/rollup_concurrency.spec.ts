/*
| The rollups kept by triggers (transaction_counts, transaction_totals,
| transaction_scope_totals) under concurrent writers of one merchant: statements that
| touch disjoint transactions but the same rollup keys, in opposite directions, must
| queue on the rollup rows rather than deadlock, and leave the rollups exact.
*/
import { test } from '@japa/runner'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { assertRollupsExact } from '#tests/helpers/reporting'
import { MerchantFactory } from '#database/factories/merchant_factory'

const ROWS_PER_SET = 40
const ROUNDS = 15
const DAYS = ['2026-03-01T10:00:00Z', '2026-03-02T10:00:00Z', '2026-04-01T10:00:00Z']

/** The SQLSTATE of each failed writer. */
async function failuresOf(writers: Array<() => Promise<unknown>>) {
  const outcomes = await Promise.allSettled(writers.map((write) => write()))
  return outcomes.flatMap((outcome) =>
    outcome.status === 'rejected' ? [String(outcome.reason?.code ?? outcome.reason)] : []
  )
}

test.group('Rollup triggers under concurrent writers', (group) => {
  group.each.setup(() => resetState())

  test('opposite multi-row updates and inserts of the same keys neither deadlock nor drift', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    // Set A starts PENDING and set B PAID, both spread over the same days and brands.
    const rowsOf = (set: string, status: string) =>
      Array.from({ length: ROWS_PER_SET }, (_, index) => ({
        merchant_id: merchant.id,
        environment: 'live',
        merchant_transaction_id: `${set}-${index}`,
        amount: index % 7 === 0 ? null : `${index + 1}.50`,
        currency: 'PHP',
        payment_status: status,
        payment_brand: index % 2 === 0 ? 'gcash' : 'maya',
        created_at: DAYS[index % DAYS.length],
        updated_at: DAYS[0],
      }))
    await db.table('transactions').multiInsert(rowsOf('A', 'PENDING'))
    await db.table('transactions').multiInsert(rowsOf('B', 'PAID'))

    const setOf = (trx: TransactionClientContract, set: string) =>
      trx
        .from('transactions')
        .where('merchant_id', merchant.id)
        .whereLike('merchant_transaction_id', `${set}-%`)
    // Each writer is one statement in its own transaction, on its own connection.
    const writers = (round: number) => [
      // A and B swap statuses: one goes PENDING -> PAID while the other goes PAID -> PENDING.
      () =>
        db.transaction(async (trx) => {
          await setOf(trx, 'A').update({ payment_status: round % 2 === 0 ? 'PAID' : 'PENDING' })
        }),
      () =>
        db.transaction(async (trx) => {
          await setOf(trx, 'B').update({ payment_status: round % 2 === 0 ? 'PENDING' : 'PAID' })
        }),
      // C and D move their rows between days in opposite directions.
      () =>
        db.transaction(async (trx) => {
          await setOf(trx, 'C').update({ created_at: db.raw(`created_at + interval '1 day'`) })
        }),
      () =>
        db.transaction(async (trx) => {
          await setOf(trx, 'D').update({ created_at: db.raw(`created_at - interval '1 day'`) })
        }),
      // New rows on the same keys, listed in opposite orders.
      () =>
        db.transaction(async (trx) => {
          await trx.table('transactions').multiInsert(rowsOf(`E${round}`, 'PAID'))
        }),
      () =>
        db.transaction(async (trx) => {
          await trx.table('transactions').multiInsert(rowsOf(`F${round}`, 'PENDING').reverse())
        }),
    ]
    await db.table('transactions').multiInsert(rowsOf('C', 'PAID'))
    await db.table('transactions').multiInsert(rowsOf('D', 'PENDING'))

    const failures: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      failures.push(...(await failuresOf(writers(round))))
    }
    // 40P01 is PostgreSQL's deadlock_detected.
    assert.deepEqual(failures, [])
    await assertRollupsExact(assert, merchant.id)
  }).timeout(300_000)
})
