/*
| The demo year looks like a merchant's, not like a generator's (issue 22 › 5): the
| shapes below hold, loosely, for years ending on three different dates, and the same
| end always gives the same data. Calendar facts are read in the real Asia/Manila zone.
*/
import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import {
  demoTransactions,
  PENNY_AMOUNTS,
  type DemoTransaction,
} from '#database/demo/demo_transactions'
import { demoCollectionLines } from '#database/demo/demo_collections'

const ENDS = ['2026-11-20T10:00:00Z', '2027-03-02T23:30:00Z', '2027-07-15T04:00:00Z'].map((iso) =>
  DateTime.fromISO(iso, { zone: 'utc' })
)
const ZONE = 'Asia/Manila'

const manila = (transaction: DemoTransaction) => transaction.createdAt.setZone(ZONE)
const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
const spread = (values: number[]) => Math.max(...values) - Math.min(...values)
const live = (year: DemoTransaction[]) => year.filter((row) => row.environment === 'live')

function successRate(rows: DemoTransaction[]) {
  return rows.filter((row) => row.status === 'PAID').length / rows.length
}

function groupBy(rows: DemoTransaction[], key: (row: DemoTransaction) => string) {
  const groups = new Map<string, DemoTransaction[]>()
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row])
  return groups
}

/** Transactions per whole Manila day of the year (the two partial ends left out). */
function dailyCounts(year: DemoTransaction[], end: DateTime) {
  const counts = new Map<string, number>()
  const today = end.setZone(ZONE).startOf('day')
  for (
    let day = today.minus({ years: 1 }).plus({ days: 1 });
    day < today;
    day = day.plus({ days: 1 })
  ) {
    counts.set(day.toISODate()!, 0)
  }
  for (const row of year) {
    const day = manila(row).toISODate()!
    if (counts.has(day)) counts.set(day, counts.get(day)! + 1)
  }
  return [...counts].map(([day, count]) => ({ day: DateTime.fromISO(day, { zone: ZONE }), count }))
}

const isPayday = (day: DateTime) => day.day === 15 || day.day === day.daysInMonth

test.group('Demo transactions: a merchant-shaped year, seeded', () => {
  test('the same end gives the same data, and nothing draws on Math.random', ({ assert }) => {
    const original = Math.random
    Math.random = () => {
      throw new Error('the demo data must not use Math.random')
    }
    try {
      const lines = () => JSON.stringify(demoCollectionLines(7, ENDS[0]))
      assert.equal(lines(), lines())
      for (const end of ENDS) {
        assert.equal(JSON.stringify(demoTransactions(end)), JSON.stringify(demoTransactions(end)))
      }
    } finally {
      Math.random = original
    }
  })

  test('amounts are skewed: many small, a few large, within the contract bounds', ({ assert }) => {
    for (const end of ENDS) {
      const amounts = live(demoTransactions(end))
        .map((row) => row.amount)
        .filter((amount) => amount !== null)
      for (const amount of amounts) assert.match(amount, /^\d{1,12}\.\d{2}$/)
      const values = amounts.map(Number).sort((a, b) => a - b)
      const median = values[Math.floor(values.length / 2)]
      assert.isBelow(median, 0.75 * average(values), end.toISO()!)
      assert.isAbove(values.at(-1)!, 10 * median, end.toISO()!)
      assert.isBelow(values[Math.floor(values.length / 10)], 0.5 * median, end.toISO()!)
    }
  })

  test('paydays and weekends are busier than other days; nights in Manila are quiet', ({
    assert,
  }) => {
    for (const end of ENDS) {
      const year = demoTransactions(end)
      const days = dailyCounts(year, end)
      const plainWeekdays = average(
        days.filter(({ day }) => day.weekday <= 5 && !isPayday(day)).map(({ count }) => count)
      )
      const paydays = average(days.filter(({ day }) => isPayday(day)).map(({ count }) => count))
      const weekends = average(
        days.filter(({ day }) => day.weekday >= 6 && !isPayday(day)).map(({ count }) => count)
      )
      assert.isAbove(paydays, 1.4 * plainWeekdays, end.toISO()!)
      assert.isAbove(weekends, 1.05 * plainWeekdays, end.toISO()!)

      const byHour = new Array(24).fill(0)
      for (const row of year) byHour[manila(row).hour]++
      const night = average(byHour.slice(0, 6))
      const daytime = average(byHour.slice(10, 22))
      assert.isBelow(night, 0.3 * daytime, end.toISO()!)
      assert.notInclude(byHour, 0, 'quiet, not closed: every hour has some payments')
    }
  })

  test('the brand mix of the first quarter differs from the last one', ({ assert }) => {
    for (const end of ENDS) {
      const year = demoTransactions(end)
      const start = end.minus({ years: 1 })
      const shares = (rows: DemoTransaction[]) => {
        const counts = groupBy(rows, (row) => row.paymentBrand)
        return (brand: string) => (counts.get(brand)?.length ?? 0) / rows.length
      }
      const firstQuarter = shares(year.filter((row) => row.createdAt < start.plus({ months: 3 })))
      const lastQuarter = shares(year.filter((row) => row.createdAt >= end.minus({ months: 3 })))
      const brands = [...new Set(year.map((row) => row.paymentBrand))]
      assert.lengthOf(brands, 6)
      const largestShift = Math.max(
        ...brands.map((brand) => Math.abs(firstQuarter(brand) - lastQuarter(brand)))
      )
      assert.isAtLeast(largestShift, 0.05, end.toISO()!)
    }
  })

  test('success rates differ between brands and from month to month', ({ assert }) => {
    for (const end of ENDS) {
      const rows = live(demoTransactions(end))
      const byBrand = [...groupBy(rows, (row) => row.paymentBrand).values()].map(successRate)
      assert.isAtLeast(spread(byBrand), 0.08, end.toISO()!)
      for (const rate of byBrand) assert.isTrue(rate > 0.5 && rate < 0.95, `${rate}`)
      const months = [...groupBy(rows, (row) => manila(row).toFormat('yyyy-MM')).values()]
      const wholeMonths = months.slice(1, -1).map(successRate)
      assert.isAtLeast(spread(wholeMonths), 0.05, end.toISO()!)
      assert.isAbove(average(wholeMonths), 0.6)
    }
  })

  test('a year of about two a day, with every status form and the rows a newcomer looks for', ({
    assert,
  }) => {
    for (const end of ENDS) {
      const year = demoTransactions(end)
      assert.isAbove(year.length, 700)
      assert.isBelow(year.length, 950)
      const times = year.map((row) => row.createdAt.toMillis())
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b)
      )
      assert.isAtMost(Math.max(...times), end.toMillis())
      assert.isAbove((Math.max(...times) - Math.min(...times)) / 86_400_000, 360)

      const combos = new Set(year.map((row) => `${row.environment}:${row.status}`))
      for (const environment of ['live', 'test']) {
        for (const status of ['PAID', 'PENDING', 'REJECTED']) {
          assert.isTrue(combos.has(`${environment}:${status}`), `${environment} ${status}`)
        }
      }
      const forms = new Set(year.map((row) => `${row.paymentStatus}/${row.legacyStatus}`))
      for (const form of ['null/S', 'PAID/S', 'null/R', 'null/P', 'EXPIRED/X', 'paid/null']) {
        assert.isTrue(forms.has(form), form)
      }
      const lastLegacy = Math.max(
        ...year.filter((row) => row.legacyStatus).map((row) => row.createdAt.toMillis())
      )
      assert.isBelow(lastLegacy, end.minus({ months: 9 }).toMillis())

      const nullAmounts = year.filter((row) => row.amount === null)
      assert.lengthOf(nullAmounts, 1)
      assert.notEqual(nullAmounts[0].status, 'PAID') // a PAID null amount fails reports (503)
      const paidAmounts = year.filter((row) => row.status === 'PAID').map((row) => row.amount)
      assert.includeMembers(paidAmounts, PENNY_AMOUNTS)
    }
  })
})
