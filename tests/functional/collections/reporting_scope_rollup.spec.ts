/*
| The scope rollup (migration 0980, app/services/collections/reporting/scope_plan.ts): charts and summaries
| without a brand filter read UTC quarter-hours, hours, days and months, and raw rows
| only under a quarter-hour. Properties: every bucket equals a hand count of the rows,
| in zones with :30 and :45 offsets, across DST changes, and before standard time
| (local mean time, whose day bounds are not on a quarter-hour); the rollup the
| triggers keep equals one computed afresh, also under concurrent writers.
*/
import { test } from '@japa/runner'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import fc from 'fast-check'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import {
  getChart,
  getMetrics,
  insertTransactions,
  upsertAsTheImportDoes,
} from '#tests/helpers/reporting'
import { formatCents, parseCents } from '#support/money'
import { startOfLocalDate } from '#services/collections/reporting/calendar'
import { parseTimestamp } from '#validators/rules/timestamp'
import { signedInMember } from '#tests/helpers/portal'
import { withRaisedLimits } from '#tests/helpers/limits'

const MINUTE = 60_000_000n
const QUARTER = 15n * MINUTE
const DAY = 86_400_000_000n

const microsOf = (iso: string) => BigInt(Date.parse(iso)) * 1000n

/** An instant as the timestamp grammar writes it in UTC, with six fractional digits. */
function isoMicros(micros: bigint) {
  let seconds = micros / 1_000_000n
  if (seconds * 1_000_000n > micros) seconds -= 1n
  const fraction = String(micros - seconds * 1_000_000n).padStart(6, '0')
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction}Z`
}

/*
| Windows of about two months: one across the 2026 DST changes of both hemispheres;
| the others across a move to an offset on the quarter-hour from one that is not:
| Africa/Monrovia from −00:44:30 to UTC on 1972-01-07, Asia/Kolkata from +05:21:10 to
| +05:30 on 1906-01-01, Asia/Kathmandu from local mean time (+05:41:16) to +05:30 on
| 1920-01-01.
*/
const WINDOWS = [
  {
    start: microsOf('2026-02-20T00:00:00Z'),
    zones: [
      'Asia/Kolkata',
      'Asia/Kathmandu',
      'Australia/Eucla',
      'Pacific/Chatham',
      'America/St_Johns',
      'Australia/Lord_Howe',
      'America/New_York',
      'Europe/London',
      'Asia/Manila',
      'UTC',
    ],
  },
  { start: microsOf('1971-12-01T00:00:00Z'), zones: ['Africa/Monrovia'] },
  { start: microsOf('1905-12-01T00:00:00Z'), zones: ['Asia/Kolkata'] },
  { start: microsOf('1919-12-01T00:00:00Z'), zones: ['Asia/Kathmandu'] },
]
const WINDOW_DAYS = 62

/** The start of the local day `days` after the window's start, in `zone`. */
function localMidnight(start: bigint, days: number, zone: string): bigint {
  const date = new Date(Number(start / 1000n) + days * 86_400_000)
  const ms = startOfLocalDate(
    { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() },
    zone
  )
  return BigInt(ms) * 1000n
}

/*
| An instant of the window, drawn near the bounds where a plan can go wrong: a local
| midnight of the zone, a UTC quarter-hour, or anywhere, each moved by a microsecond,
| a few seconds or not at all. Most fall on a few days, so that rows and range bounds
| meet.
*/
const instantArbitrary = fc.record({
  near: fc.constantFrom('local midnight', 'quarter', 'anywhere'),
  day: fc.oneof(fc.constantFrom(3, 17, 45), fc.integer({ min: 0, max: WINDOW_DAYS - 1 })),
  quarter: fc.oneof(fc.constantFrom(0, 1, 34, 35), fc.integer({ min: 0, max: 95 })),
  anywhere: fc.bigInt({ min: 0n, max: DAY - 1n }),
  nudge: fc.constantFrom(0n, 0n, 1n, -1n, 30_000_000n, -30_000_000n),
})
type InstantChoice = typeof instantArbitrary extends fc.Arbitrary<infer T> ? T : never

function instantOf(choice: InstantChoice, start: bigint, zone: string): bigint {
  const day = start + BigInt(choice.day) * DAY
  const base =
    choice.near === 'local midnight'
      ? localMidnight(start, choice.day, zone)
      : choice.near === 'quarter'
        ? day + BigInt(choice.quarter) * QUARTER
        : day + choice.anywhere
  return base + choice.nudge
}

const rowArbitrary = fc.record({
  at: instantArbitrary,
  // Some rows sit right at the range's bounds instead (a microsecond either side).
  atBound: fc.constantFrom(undefined, undefined, 'from', 'to'),
  status: fc.constantFrom('PAID', 'PAID', 'PENDING', 'REJECTED'),
  cents: fc.bigInt({ min: 0n, max: 10n ** 9n }),
  currency: fc.constantFrom('PHP', 'PHP', 'PHP', 'USD'),
})

interface Counted {
  at: bigint
  status: string
  cents: bigint
  currency: string
}

function handCount(rows: Counted[], from: bigint, to: bigint) {
  const figures = {
    collection_total: 0n,
    transaction_count: 0,
    successful_count: 0,
    pending_count: 0,
    rejected_count: 0,
  }
  for (const row of rows) {
    if (row.at < from || row.at >= to || row.currency !== 'PHP') continue
    figures.transaction_count++
    if (row.status === 'PAID') {
      figures.successful_count++
      figures.collection_total += row.cents
    } else if (row.status === 'REJECTED') figures.rejected_count++
    else figures.pending_count++
  }
  return { ...figures, collection_total: formatCents(figures.collection_total) }
}

const FIELDS = [
  'collection_total',
  'transaction_count',
  'successful_count',
  'pending_count',
  'rejected_count',
] as const
const figuresOf = (value: Record<string, unknown>) =>
  Object.fromEntries(FIELDS.map((field) => [field, value[field]]))

/*
| The rollup as the triggers keep it, and as computed afresh from the transactions
| with other SQL than the migration's (epoch arithmetic, UTC wall times), periods
| whose figures are all zero left out.
*/
async function scopeRollupVersusFresh(merchantId: number) {
  const kept = await db.rawQuery(
    `SELECT environment, currency, grain, period_start, paid_count::text, pending_count::text,
            rejected_count::text, paid_amount_total::text, paid_null_amount_count::text
       FROM transaction_scope_totals
      WHERE merchant_id = ? AND (paid_count <> 0 OR pending_count <> 0 OR rejected_count <> 0
                                 OR paid_amount_total <> 0 OR paid_null_amount_count <> 0)
      ORDER BY 1, 2, 3, 4`,
    [merchantId]
  )
  const fresh = await db.rawQuery(
    `SELECT environment, currency, grain.name AS grain,
            CASE grain.name
              WHEN 'quarter' THEN to_timestamp(floor(extract(epoch FROM created_at) / 900) * 900)
              ELSE date_trunc(grain.name, created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
            END AS period_start,
            count(*) FILTER (WHERE status = 'PAID')::text AS paid_count,
            count(*) FILTER (WHERE status = 'PENDING')::text AS pending_count,
            count(*) FILTER (WHERE status = 'REJECTED')::text AS rejected_count,
            coalesce(sum(amount) FILTER (WHERE status = 'PAID'), 0)::text AS paid_amount_total,
            count(*) FILTER (WHERE status = 'PAID' AND amount IS NULL)::text AS paid_null_amount_count
       FROM transactions
      CROSS JOIN (VALUES ('quarter'), ('hour'), ('day'), ('month')) AS grain (name)
      WHERE merchant_id = ? AND created_at IS NOT NULL
      GROUP BY 1, 2, 3, 4
      ORDER BY 1, 2, 3, 4`,
    [merchantId]
  )
  // Each row also has its other columns, compared as they are.
  const canonical = (rows: Array<{ period_start: string | Date; paid_amount_total: string }>) =>
    rows.map((row) => ({
      ...row,
      period_start: new Date(row.period_start).toISOString(),
      paid_amount_total: formatCents(parseCents(row.paid_amount_total)),
    }))
  return { kept: canonical(kept.rows), fresh: canonical(fresh.rows) }
}

test.group('Metrics and charts: the scope rollup in every kind of zone', (group) => {
  group.each.setup(() => resetState())

  test('every bucket of a chart, and the summary, equal a hand count ({$self})')
    .with(WINDOWS.map((window) => window.zones.join(', ')))
    .run(async ({ client, assert }, zones) => {
      const window = WINDOWS.find((candidate) => candidate.zones.join(', ') === zones)!
      const member = await signedInMember()
      // Two requests a run, more while a failure shrinks: beyond the API limit.
      await withRaisedLimits(() =>
        fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...window.zones),
            fc.array(rowArbitrary, { maxLength: 40 }),
            instantArbitrary,
            fc.bigInt({ min: 1n, max: BigInt(WINDOW_DAYS - 1) * DAY }),
            fc.constantFrom('day', 'day', 'day', 'month'),
            async (timezone, generated, fromChoice, length, interval) => {
              await db.from('transactions').where('merchant_id', member.merchant.id).delete()
              const from = instantOf(fromChoice, window.start, timezone)
              const to = from + length
              const rows: Counted[] = generated.map((row) => ({
                at:
                  row.atBound === undefined
                    ? instantOf(row.at, window.start, timezone)
                    : (row.atBound === 'from' ? from : to) + (row.at.nudge < 0n ? -1n : 0n),
                status: row.status,
                cents: row.cents,
                currency: row.currency,
              }))
              await insertTransactions(
                member.merchant.id,
                rows.map((row) => ({
                  created_at: isoMicros(row.at),
                  status: row.status,
                  amount: formatCents(row.cents),
                  currency: row.currency,
                }))
              )
              const query = {
                environment: 'live',
                currency: 'PHP',
                from: isoMicros(from),
                to: isoMicros(to),
                timezone,
              }
              const chart = await getChart(client, member.bearer, { ...query, interval })
              assert.equal(chart.status(), 200, JSON.stringify(chart.body()))
              const micros = (value: string) => parseTimestamp(value)!.epochMicros
              for (const bucket of chart.body().data.buckets) {
                assert.deepEqual(
                  figuresOf(bucket),
                  handCount(rows, micros(bucket.from), micros(bucket.to)),
                  `${timezone} ${bucket.period}`
                )
              }
              const summary = await getMetrics(client, member.bearer, query)
              assert.equal(summary.status(), 200, JSON.stringify(summary.body()))
              assert.deepEqual(figuresOf(summary.body().data), handCount(rows, from, to))
            }
          ),
          { numRuns: 30 }
        )
      )
    })
    .timeout(480_000)

  test('the rollup kept by the triggers equals a fresh aggregate after inserts, upserts, updates and deletes', async ({
    assert,
  }) => {
    const member = await signedInMember()
    const start = WINDOWS[0].start
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArbitrary, { minLength: 1, maxLength: 30 }),
        fc.array(
          fc.record({
            pick: fc.nat(),
            action: fc.constantFrom(
              'status',
              'amount',
              'null_amount',
              'move',
              'delete',
              'null_date'
            ),
            shift: fc.bigInt({ min: -2n * DAY, max: 2n * DAY }),
          }),
          { maxLength: 10 }
        ),
        async (rows, changes) => {
          await db.from('transactions').where('merchant_id', member.merchant.id).delete()
          await insertTransactions(
            member.merchant.id,
            rows.map((row) => ({
              created_at: isoMicros(instantOf(row.at, start, 'Asia/Kolkata')),
              status: row.status,
              amount: formatCents(row.cents),
              currency: row.currency,
            }))
          )
          const idRows = await db
            .from('transactions')
            .where('merchant_id', member.merchant.id)
            .select('id')
          const ids: number[] = idRows.map((row: { id: number }) => row.id)
          for (const change of changes) {
            const target = db.from('transactions').where('id', ids[change.pick % ids.length])
            if (change.action === 'status') await target.update({ payment_status: 'REJECTED' })
            else if (change.action === 'amount') {
              await target.update({ amount: db.raw('coalesce(amount, 0) + 0.01') })
            } else if (change.action === 'null_amount') await target.update({ amount: null })
            else if (change.action === 'move') {
              await target.update({
                created_at: db.raw(`created_at + ?::interval`, [`${change.shift} microseconds`]),
              })
            } else if (change.action === 'null_date') await target.update({ created_at: null })
            else await target.delete()
          }
          await upsertAsTheImportDoes(member.merchant.id)
          const { kept, fresh } = await scopeRollupVersusFresh(member.merchant.id)
          assert.deepEqual(kept, fresh)
        }
      ),
      { numRuns: 15 }
    )
    await db.rawQuery('SELECT reporting_rebuild_transaction_totals(?)', [member.merchant.id])
    const rebuilt = await scopeRollupVersusFresh(member.merchant.id)
    assert.deepEqual(rebuilt.kept, rebuilt.fresh)
  }).timeout(360_000)

  test('concurrent writers of the same periods all count, without deadlocks', async ({
    assert,
  }) => {
    const member = await signedInMember()
    const start = WINDOWS[0].start
    // Rows over the same hours, in opposite orders, so that writers meet on every key.
    const rowsOf = (prefix: string, reversed: boolean) =>
      Array.from({ length: 60 }, (_, index) => {
        const slot = reversed ? 59 - index : index
        return {
          merchant_id: member.merchant.id,
          environment: 'live',
          merchant_transaction_id: `${prefix}-${index}`,
          amount: '1.25',
          currency: 'PHP',
          payment_status: index % 3 === 0 ? 'PENDING' : 'PAID',
          payment_brand: 'gcash',
          created_at: isoMicros(start + BigInt(slot) * 7n * MINUTE),
          updated_at: isoMicros(start),
        }
      })
    await db.table('transactions').multiInsert(rowsOf('BASE', false))
    // The update and the delete take disjoint rows of the same hours: two statements
    // locking the same transaction rows in different scan orders (an index range
    // against a sequential scan) can deadlock on those rows whatever the triggers do,
    // which is not what this test is about.
    const writers = [
      (trx: TransactionClientContract) => trx.table('transactions').multiInsert(rowsOf('A', false)),
      (trx: TransactionClientContract) => trx.table('transactions').multiInsert(rowsOf('B', true)),
      (trx: TransactionClientContract) =>
        trx
          .from('transactions')
          .where('merchant_id', member.merchant.id)
          .whereRaw(`merchant_transaction_id ~ '^BASE-[0-9]*[1-46-9]$'`)
          .update({
            payment_status: 'REJECTED',
            created_at: db.raw(`created_at + interval '11 minutes'`),
          }),
      (trx: TransactionClientContract) =>
        trx
          .from('transactions')
          .where('merchant_id', member.merchant.id)
          .whereRaw(`merchant_transaction_id ~ '^BASE-[0-9]*[05]$'`)
          .delete(),
    ]
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        writers.map((write) => db.transaction(async (trx) => void (await write(trx))))
      )
      const { kept, fresh } = await scopeRollupVersusFresh(member.merchant.id)
      assert.deepEqual(kept, fresh)
      await db
        .from('transactions')
        .where('merchant_id', member.merchant.id)
        .whereNot('merchant_transaction_id', 'like', 'BASE-%')
        .delete()
    }
  }).timeout(360_000)

  test('TRUNCATE of transactions empties the rollup; deleting a merchant removes its rows', async ({
    assert,
  }) => {
    const member = await signedInMember()
    const count = async () => {
      const row = await db.from('transaction_scope_totals').count('* as total').first()
      return Number(row.total)
    }
    await insertTransactions(member.merchant.id, [{ created_at: '2026-03-01T00:07:00Z' }])
    assert.equal(await count(), 4) // its quarter, hour, day and month
    await db.rawQuery('TRUNCATE transactions CASCADE')
    assert.equal(await count(), 0)
    await insertTransactions(member.merchant.id, [{ created_at: '2026-03-01T00:07:00Z' }])
    await db.from('users').where('merchant_id', member.merchant.id).delete()
    await db.from('merchants').where('id', member.merchant.id).delete()
    assert.equal(await count(), 0)
  })
})
