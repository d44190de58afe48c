/*
| meta.total of a date-ranged transaction list is exact whatever the range: read from
| the day/month rollup for whole UTC days and months and from the rows at the cut
| edges (app/services/collections/transactions/list_transactions.ts), it must equal count(*) of
| the same conditions for ranges that are whole months, cut days, a few hours, or
| many years, for every filter the rollup can answer, and stay so through writes.
*/
import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { signedInMember, type Session } from '#tests/helpers/portal'
import { route } from '#tests/helpers/routes'
import { liftLimit } from '#tests/helpers/limits'
import { importTransactions, type ImportLine } from '#tests/helpers/collections'

const RANGES: Array<[string, string]> = [
  // Whole Manila months (a UTC month plus and minus 8 hours), and several of them.
  ['2026-03-01T00:00:00+08:00', '2026-04-01T00:00:00+08:00'],
  ['2025-12-01T00:00:00+08:00', '2026-06-01T00:00:00+08:00'],
  // Whole UTC months and days, exactly on their bounds.
  ['2026-02-01T00:00:00Z', '2026-04-01T00:00:00Z'],
  ['2026-03-02T00:00:00Z', '2026-03-05T00:00:00Z'],
  // Cut days and microsecond bounds.
  ['2026-02-28T15:59:59.999999Z', '2026-03-31T16:00:00.000001Z'],
  ['2026-03-01T10:00:00.000001+08:00', '2026-03-01T10:00:00.000002+08:00'],
  ['2026-03-01T00:00:00-05:00', '2026-03-03T12:30:00-05:00'],
  // Years, and a range holding nothing.
  ['2020-01-01T00:00:00Z', '2030-01-01T00:00:00Z'],
  ['2001-01-01T00:00:00Z', '2001-02-01T00:00:00Z'],
]

const FILTERS: Array<Record<string, string>> = [
  {},
  { status: 'PAID' },
  { status: 'PENDING' },
  { currency: 'USD' },
  { payment_brand: 'maya' },
  { status: 'PAID', currency: 'PHP', payment_brand: 'gcash' },
  { environment: 'test' },
]

/** Rows on and around month, day and Manila-day bounds, in two currencies and brands. */
function spread(session: Session): ImportLine[] {
  const instants = [
    '2025-11-30T15:59:59.999999Z',
    '2025-12-01T00:00:00Z',
    '2026-01-15T08:00:00+08:00',
    '2026-02-28T15:59:59.999999Z',
    '2026-02-28T16:00:00Z',
    '2026-02-28T23:59:59.999999Z',
    '2026-03-01T00:00:00Z',
    '2026-03-01T10:00:00.000001+08:00',
    '2026-03-02T00:00:00Z',
    '2026-03-03T17:29:59.999999Z',
    '2026-03-03T17:30:00Z',
    '2026-03-04T23:59:59.999999Z',
    '2026-03-05T00:00:00Z',
    '2026-03-15T12:00:00Z',
    '2026-03-31T15:59:59.999999Z',
    '2026-03-31T16:00:00Z',
    '2026-03-31T16:00:00.000001Z',
    '2026-04-01T00:00:00Z',
    '2026-05-31T15:59:59Z',
    '2026-06-15T00:00:00Z',
  ]
  return instants.map((created_at, index) => ({
    merchant_id: session.merchant.id,
    environment: index % 7 === 6 ? 'test' : 'live',
    merchant_transaction_id: `R-${index}`,
    created_at,
    currency: index % 3 === 0 ? 'USD' : 'PHP',
    payment_brand: index % 4 === 0 ? 'maya' : 'gcash',
    payment_status: ['PAID', 'PENDING', 'REJECTED', null][index % 4],
    legacy_status: index % 4 === 3 ? 'S' : null,
  }))
}

async function listedTotals(client: ApiClient, session: Session) {
  const totals: number[] = []
  for (const [from, to] of RANGES) {
    for (const filter of FILTERS) {
      const response = await client
        .get(route('collections.transactions.index'))
        .header('Authorization', session.bearer)
        .qs({ environment: 'live', from, to, ...filter })
      response.assertStatus(200)
      totals.push(response.body().meta.total)
    }
  }
  return totals
}

async function countedTotals(session: Session) {
  const totals: number[] = []
  for (const [from, to] of RANGES) {
    for (const { environment = 'live', ...rest } of FILTERS) {
      const row = await db
        .from('transactions')
        .where({ merchant_id: session.merchant.id, environment, ...rest })
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .count('* as total')
        .first()
      totals.push(Number(row.total))
    }
  }
  return totals
}

test.group('GET /portal/collections/transactions › meta.total of a date range', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => liftLimit('api'))

  test('is the exact count for whole months, cut days, hours and years, under every filter', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const other = await signedInMember()
    await importTransactions(spread(admin))
    await importTransactions(spread(other))
    const counted = await countedTotals(admin)
    assert.isAbove(
      counted.reduce((sum, total) => sum + total, 0),
      100,
      'the ranges hold rows'
    )
    assert.deepEqual(await listedTotals(client, admin), counted)
  })

  test('stays exact through status, currency, time and environment changes and deletions', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await importTransactions(spread(admin))
    const mine = () => db.from('transactions').where('merchant_id', admin.merchant.id)
    await mine()
      .where('merchant_transaction_id', 'R-1')
      .update({ payment_status: 'REJECTED', currency: 'USD' })
    await mine()
      .where('merchant_transaction_id', 'R-13')
      .update({ created_at: '2026-03-31T16:00:00Z' })
    await mine().where('merchant_transaction_id', 'R-6').update({ environment: 'test' })
    await mine().where('merchant_transaction_id', 'R-8').delete()
    assert.deepEqual(await listedTotals(client, admin), await countedTotals(admin))
  })
})
