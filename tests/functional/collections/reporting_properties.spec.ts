import { test } from '@japa/runner'
import fc from 'fast-check'
import db from '@adonisjs/lucid/services/db'
import { resetState, untilSomeBackendWaitsForALock } from '#tests/helpers/database'
import {
  getChart,
  getMetrics,
  insertTransactions,
  type TransactionRow,
  upsertAsTheImportDoes,
} from '#tests/helpers/reporting'
import { formatCents, parseCents, successRatePercent } from '#support/money'
import { parseTimestamp } from '#validators/rules/timestamp'
import type { Environment } from '#models/collections_vocabulary'
import { signedInMember } from '#tests/helpers/portal'

const WINDOW_FROM = BigInt(Date.parse('2023-01-01T00:00:00Z')) * 1000n
const WINDOW_MICROS = BigInt(Date.parse('2027-01-01T00:00:00Z')) * 1000n - WINDOW_FROM
const DAY = 86_400_000_000n
const ZONES = [
  'Asia/Manila',
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'Pacific/Apia',
  'Asia/Kathmandu',
  'UTC',
]

/** An instant as the timestamp grammar writes it in UTC, with six fractional digits. */
function isoMicros(micros: bigint) {
  const date = new Date(Number(micros / 1000n))
  return `${date.toISOString().slice(0, 19)}.${String(micros % 1_000_000n).padStart(6, '0')}Z`
}

const rowArbitrary = fc.record({
  at: fc.bigInt({ min: 0n, max: WINDOW_MICROS - 1n }),
  status: fc.constantFrom('PAID', 'PAID', 'paid', 'PENDING', 'REJECTED', null),
  legacy: fc.constantFrom(null, 'S', 'R', 'X'),
  cents: fc.bigInt({ min: 0n, max: 10n ** 11n }),
  nullAmount: fc.boolean(),
  brand: fc.constantFrom('gcash', 'maya'),
  environment: fc.constantFrom('live', 'live', 'live', 'test'),
  currency: fc.constantFrom('PHP', 'PHP', 'PHP', 'USD'),
  archived: fc.boolean(),
})

type GeneratedRow = typeof rowArbitrary extends fc.Arbitrary<infer T> ? T : never

function normalized(row: GeneratedRow) {
  const upper = row.status?.toUpperCase()
  if (upper && ['PAID', 'PENDING', 'REJECTED'].includes(upper)) return upper
  if (row.legacy === 'S') return 'PAID'
  if (row.legacy === 'R') return 'REJECTED'
  return 'PENDING'
}

function toTransactionRow(row: GeneratedRow): TransactionRow {
  const paid = normalized(row) === 'PAID'
  return {
    created_at: isoMicros(WINDOW_FROM + row.at),
    status: row.status,
    legacy_status: row.legacy,
    // PAID rows always carry an amount here (the 503 rule has its own tests).
    amount: row.nullAmount && !paid ? null : formatCents(row.cents),
    payment_brand: row.brand,
    environment: row.environment as Environment,
    currency: row.currency,
    is_archived: row.archived,
  }
}

/** The summary a reader would compute by hand from the rows. */
function expectedSummary(rows: GeneratedRow[], from: bigint, to: bigint, brand?: string) {
  let paid = 0n
  let pending = 0n
  let rejected = 0n
  let cents = 0n
  for (const row of rows) {
    const at = WINDOW_FROM + row.at
    if (at < from || at >= to) continue
    if (row.environment !== 'live' || row.currency !== 'PHP') continue
    if (brand !== undefined && row.brand !== brand) continue
    const status = normalized(row)
    if (status === 'PAID') {
      paid++
      cents += row.cents
    } else if (status === 'REJECTED') rejected++
    else pending++
  }
  const total = paid + pending + rejected
  return {
    collection_total: formatCents(cents),
    transaction_count: Number(total),
    successful_count: Number(paid),
    pending_count: Number(pending),
    rejected_count: Number(rejected),
    success_rate_percent: successRatePercent(paid, total),
  }
}

const FIELDS = [
  'collection_total',
  'transaction_count',
  'successful_count',
  'pending_count',
  'rejected_count',
  'success_rate_percent',
] as const

function metricsOf(value: Record<string, unknown>) {
  return Object.fromEntries(FIELDS.map((field) => [field, value[field]]))
}

/** The rollup as the triggers keep it, and as it would be recomputed from scratch. */
async function rollupVersusFresh(merchantId: number) {
  const kept = await db.rawQuery(
    `SELECT environment, currency, grain, period_start, payment_brand, status,
            transaction_count::text, amount_total::text, null_amount_count::text
       FROM transaction_totals WHERE merchant_id = ? AND transaction_count <> 0
      ORDER BY 1, 2, 3, 4, 5, 6`,
    [merchantId]
  )
  const fresh = await db.rawQuery(
    `SELECT environment, currency, grain.name AS grain,
            date_trunc(grain.name, created_at, 'UTC') AS period_start, payment_brand, status,
            count(*)::text AS transaction_count, coalesce(sum(amount), 0)::text AS amount_total,
            (count(*) - count(amount))::text AS null_amount_count
       FROM transactions CROSS JOIN (VALUES ('day'), ('month')) AS grain (name)
      WHERE merchant_id = ? AND created_at IS NOT NULL
      GROUP BY 1, 2, 3, 4, 5, 6
      ORDER BY 1, 2, 3, 4, 5, 6`,
    [merchantId]
  )
  // Each row also has its other columns, compared as they are.
  const canonical = (
    rows: Array<{
      grain: string
      period_start: string | Date
      transaction_count: string
      amount_total: string
    }>
  ) =>
    rows.map((row) => ({
      ...row,
      period_start: new Date(row.period_start).toISOString(),
      amount_total: formatCents(parseCents(row.amount_total)),
    }))
  return { kept: canonical(kept.rows), fresh: canonical(fresh.rows) }
}

test.group('Metrics and charts: properties over random populations, zones and ranges', (group) => {
  group.each.setup(() => resetState())

  test('bucket sums reconcile with chart totals, chart totals with the summary, and both with a hand count', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArbitrary, { minLength: 0, maxLength: 40 }),
        fc.constantFrom(...ZONES),
        fc.constantFrom('day', 'month', 'year'),
        fc.bigInt({ min: 0n, max: WINDOW_MICROS }),
        fc.bigInt({ min: 1n, max: 360n * DAY }),
        fc.boolean(),
        fc.option(fc.constantFrom('gcash', 'maya'), { nil: undefined }),
        async (rows, timezone, interval, start, length, wholeDays, brand) => {
          await db.from('transactions').where('merchant_id', member.merchant.id).delete()
          await insertTransactions(member.merchant.id, rows.map(toTransactionRow))
          // Longer ranges for coarser intervals, still within the bucket limits.
          const scale = interval === 'day' ? 1n : interval === 'month' ? 9n : 8n
          let from = WINDOW_FROM - 30n * DAY + start
          let span = length * scale
          if (wholeDays) {
            from -= from % DAY
            span = span - (span % DAY) + DAY
          }
          const to = from + span
          const query = {
            environment: 'live',
            currency: 'PHP',
            from: isoMicros(from),
            to: isoMicros(to),
            timezone,
            ...(brand ? { payment_brand: brand } : {}),
          }
          const chart = await getChart(client, member.bearer, { ...query, interval })
          assert.equal(chart.status(), 200, JSON.stringify(chart.body()))
          const summary = await getMetrics(client, member.bearer, query)
          assert.equal(summary.status(), 200, JSON.stringify(summary.body()))

          const { totals, buckets } = chart.body().data
          const expected = expectedSummary(rows, from, to, brand)
          assert.deepEqual(metricsOf(summary.body().data), expected)
          assert.deepEqual(metricsOf(totals), expected)

          let cents = 0n
          const counts = {
            transaction_count: 0,
            successful_count: 0,
            pending_count: 0,
            rejected_count: 0,
          }
          for (const bucket of buckets) {
            cents += parseCents(bucket.collection_total)
            for (const key of Object.keys(counts) as Array<keyof typeof counts>)
              counts[key] += bucket[key]
            assert.equal(
              bucket.transaction_count,
              bucket.successful_count + bucket.pending_count + bucket.rejected_count
            )
          }
          assert.equal(formatCents(cents), totals.collection_total)
          assert.deepInclude(totals, counts)
          // Buckets tile [from, to) exactly.
          const micros = (value: string) => parseTimestamp(value)!.epochMicros
          assert.equal(micros(buckets[0].from), from)
          assert.equal(micros(buckets[buckets.length - 1].to), to)
          for (let index = 1; index < buckets.length; index++) {
            assert.equal(buckets[index].from, buckets[index - 1].to)
          }
        }
      ),
      { numRuns: 15 }
    )
  }).timeout(360_000)

  test('the rollup kept by the triggers equals a fresh aggregate after inserts, upserts, updates and deletes', async ({
    assert,
  }) => {
    const member = await signedInMember()
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArbitrary, { minLength: 1, maxLength: 30 }),
        fc.array(
          fc.record({
            pick: fc.nat(),
            action: fc.constantFrom('status', 'amount', 'move', 'brand', 'delete', 'null_date'),
            shift: fc.bigInt({ min: -400n * DAY, max: 400n * DAY }),
          }),
          { maxLength: 10 }
        ),
        async (rows, changes) => {
          await db.from('transactions').where('merchant_id', member.merchant.id).delete()
          await insertTransactions(member.merchant.id, rows.map(toTransactionRow))
          const idRows = await db
            .from('transactions')
            .where('merchant_id', member.merchant.id)
            .select('id')
          const ids: number[] = idRows.map((row: { id: number }) => row.id)
          for (const change of changes) {
            const id = ids[change.pick % ids.length]
            const target = db.from('transactions').where('id', id)
            if (change.action === 'status') {
              await target.update({ payment_status: 'REJECTED' })
            } else if (change.action === 'amount') {
              await target.update({ amount: db.raw('coalesce(amount, 0) + 0.01') })
            } else if (change.action === 'move') {
              await target.update({
                created_at: db.raw(`created_at + ?::interval`, [`${change.shift} microseconds`]),
              })
            } else if (change.action === 'brand') {
              await target.update({ payment_brand: 'card' })
            } else if (change.action === 'null_date') {
              await target.update({ created_at: null })
            } else {
              await target.delete()
            }
          }
          await upsertAsTheImportDoes(member.merchant.id)
          const { kept, fresh } = await rollupVersusFresh(member.merchant.id)
          assert.deepEqual(kept, fresh)
        }
      ),
      { numRuns: 15 }
    )
    await db.rawQuery('SELECT reporting_rebuild_transaction_totals(?)', [member.merchant.id])
    const rebuilt = await rollupVersusFresh(member.merchant.id)
    assert.deepEqual(rebuilt.kept, rebuilt.fresh)
  }).timeout(360_000)

  test('two concurrent writers of the same rollup rows both count: the second waits for the first', async ({
    assert,
  }) => {
    const member = await signedInMember()
    const row = (reference: string, amount: string) => ({
      merchant_id: member.merchant.id,
      environment: 'live',
      merchant_transaction_id: reference,
      amount,
      currency: 'PHP',
      payment_status: 'PAID',
      payment_brand: 'gcash',
      created_at: '2026-03-01T10:00:00Z',
      updated_at: '2026-03-01T10:00:00Z',
    })
    const first = await db.transaction()
    const second = await db.transaction()
    try {
      await first.table('transactions').insert(row('C-1', '1.10'))
      // Same day, month and key: blocks on the first writer's rollup rows.
      // (Query builders run when awaited: start this one without waiting for it.)
      const pending = (async () => second.table('transactions').insert(row('C-2', '2.20')))()
      await untilSomeBackendWaitsForALock({ query: '%insert into "transactions"%' })
      await first.commit()
      await pending
      await second.commit()
    } finally {
      if (!first.isCompleted) await first.rollback()
      if (!second.isCompleted) await second.rollback()
    }
    const { kept, fresh } = await rollupVersusFresh(member.merchant.id)
    assert.deepEqual(kept, fresh)
    assert.deepEqual(
      kept.map((total) => [total.grain, total.transaction_count, total.amount_total]),
      [
        ['day', '2', '3.30'],
        ['month', '2', '3.30'],
      ]
    )
  })

  test('TRUNCATE of transactions empties the rollup; deleting a merchant removes its rows', async ({
    assert,
  }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [{ created_at: '2026-03-01T00:00:00Z' }])
    const count = async () => {
      const row = await db.from('transaction_totals').count('* as total').first()
      return Number(row.total)
    }
    assert.equal(await count(), 2) // one day row, one month row
    await db.rawQuery('TRUNCATE transactions CASCADE')
    assert.equal(await count(), 0)
    await insertTransactions(member.merchant.id, [{ created_at: '2026-03-01T00:00:00Z' }])
    await db.from('users').where('merchant_id', member.merchant.id).delete()
    await db.from('merchants').where('id', member.merchant.id).delete()
    assert.equal(await count(), 0)
  })
})
