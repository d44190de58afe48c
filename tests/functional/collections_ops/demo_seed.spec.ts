/*
| `node ace demo:seed` gives a newcomer a year of collections to look at (issue 12,
| "Operator side"), loaded through the import: both environments, every status with
| legacy codes, pennies, evidence of every kind, a corrupt snapshot and a purged one.
| Its charts look like a merchant's (issue 22 › 5): busier paydays, success rates that
| differ by brand and by month (the generator's own properties, loosely pinned:
| tests/unit/demo_transactions.spec.ts).
*/
import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { runCommand } from '#tests/helpers/foundation'
import { EVIDENCE_KINDS } from '#services/collections/history/evidence_kinds'
import { openProjection, openSnapshot } from '#services/collections/history/evidence_snapshot'
import { getChart, getMetrics } from '#tests/helpers/reporting'
import { signedInMember } from '#tests/helpers/portal'
import { seedDemoCollections } from '#database/demo/demo_collections'
import DemoSeed from '../../../commands/demo_seed.js'

const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
const spread = (values: number[]) => Math.max(...values) - Math.min(...values)

test.group('demo:seed › collections', (group) => {
  group.each.setup(() => resetState())

  test('seeds a year of transactions and evidence for the demo merchant', async ({ assert }) => {
    const result = await runCommand(DemoSeed, [])
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    const demo = result.json()
    assert.isTrue(demo.collections.created)
    const merchantId = demo.merchant.id

    const transactions = await db.from('transactions').where('merchant_id', merchantId).select('*')
    assert.equal(transactions.length, demo.collections.transactions)
    const combos = new Set(transactions.map((row) => `${row.environment}:${row.status}`))
    for (const environment of ['test', 'live']) {
      for (const status of ['PAID', 'PENDING', 'REJECTED']) {
        assert.isTrue(combos.has(`${environment}:${status}`), `${environment} ${status}`)
      }
    }
    const legacy = new Set(
      transactions.filter((row) => !row.payment_status).map((row) => row.legacy_status)
    )
    assert.includeMembers([...legacy], ['S', 'R'])
    assert.isAbove(new Set(transactions.map((row) => row.payment_brand)).size, 3)
    const paidAmounts = new Set(
      transactions.filter((row) => row.status === 'PAID').map((row) => row.amount)
    )
    assert.includeMembers([...paidAmounts], ['0.10', '0.20', '33.33', '0.01'])

    const times = transactions.map((row) => row.created_at.getTime())
    const spanDays = (Math.max(...times) - Math.min(...times)) / 86_400_000
    assert.isAbove(spanDays, 360)
    assert.isAtMost(Math.max(...times), DateTime.now().toMillis())

    const evidence = await db.from('exchange_evidence').where('merchant_id', merchantId).select('*')
    assert.sameMembers([...new Set(evidence.map((row) => row.kind))], [...EVIDENCE_KINDS])
    const purged = evidence.filter((row) => row.purged_at !== null)
    assert.lengthOf(purged, 1)
    assert.isNull(purged[0].snapshot_ciphertext)
    assert.isAbove(evidence.filter((row) => row.legal_hold).length, 0)
    const unreadable = evidence.filter(
      (row) =>
        row.snapshot_ciphertext !== null && openSnapshot(row.id, row.snapshot_ciphertext) === null
    )
    assert.lengthOf(unreadable, 1)
    assert.isNull(openProjection(unreadable[0].id, unreadable[0].projection_ciphertext))
  })

  test('a second run keeps the demo transactions as they are', async ({ assert }) => {
    const firstRun = await runCommand(DemoSeed, [])
    const first = firstRun.json()
    const before = await db.from('exchange_evidence').count('* as total').first()
    const second = await runCommand(DemoSeed, [])
    assert.include(second.json().collections, {
      transactions: first.collections.transactions,
      created: false,
    })
    const after = await db.from('exchange_evidence').count('* as total').first()
    assert.equal(Number(after?.total), Number(before?.total))
  })

  test('the demo year through the charts in Asia/Manila: paydays stand out, rates differ by month and brand', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const end = DateTime.fromISO('2026-11-20T10:00:00Z')
    await seedDemoCollections(member.merchant.id, end)
    const today = end.setZone('Asia/Manila').startOf('day')
    const year = {
      environment: 'live',
      currency: 'PHP',
      timezone: 'Asia/Manila',
      from: today.minus({ years: 1 }).plus({ days: 1 }).toISO(),
      to: today.toISO(),
    }

    const daily = await getChart(client, member.bearer, { ...year, interval: 'day' })
    daily.assertStatus(200)
    const days: Array<{ day: DateTime; count: number }> = daily
      .body()
      .data.buckets.map((bucket: { period: string; transaction_count: number }) => ({
        day: DateTime.fromISO(bucket.period, { zone: 'Asia/Manila' }),
        count: bucket.transaction_count,
      }))
    assert.lengthOf(days, 364)
    const isPayday = (day: DateTime) => day.day === 15 || day.day === day.daysInMonth
    const countsOn = (which: (day: DateTime) => boolean) =>
      average(days.filter(({ day }) => which(day)).map(({ count }) => count))
    const plainWeekdays = countsOn((day) => day.weekday <= 5 && !isPayday(day))
    assert.isAbove(countsOn(isPayday), 1.4 * plainWeekdays)
    assert.isAbove(
      countsOn((day) => day.weekday >= 6 && !isPayday(day)),
      plainWeekdays
    )

    const monthly = await getChart(client, member.bearer, { ...year, interval: 'month' })
    monthly.assertStatus(200)
    const wholeMonths = monthly
      .body()
      .data.buckets.filter((bucket: { partial: boolean }) => !bucket.partial)
      .map((bucket: { success_rate_percent: string }) => Number(bucket.success_rate_percent))
    assert.isAtLeast(wholeMonths.length, 10)
    assert.isAtLeast(spread(wholeMonths), 5)

    const rates: number[] = []
    for (const brand of ['gcash', 'maya', 'card_visa', 'card_mastercard']) {
      const metrics = await getMetrics(client, member.bearer, { ...year, payment_brand: brand })
      metrics.assertStatus(200)
      rates.push(Number(metrics.body().data.success_rate_percent))
    }
    assert.isAtLeast(spread(rates), 8)
  })
})
