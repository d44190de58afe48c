import { test } from '@japa/runner'
import fc from 'fast-check'
import { formatCents, parseCents, successRatePercent } from '#reporting/money'
import { planReads } from '#reporting/query_plan'

test.group('Reporting money: exact two-decimal strings (decisions.md §2)', () => {
  test('numeric strings from PostgreSQL parse to cents exactly, beyond float precision', ({
    assert,
  }) => {
    assert.equal(parseCents('0'), 0n)
    assert.equal(parseCents('1500.5'), 150050n)
    assert.equal(parseCents('1500.50'), 150050n)
    assert.equal(parseCents('-3.25'), -325n)
    assert.equal(parseCents('99999999999999999.99'), 9999999999999999999n)
    assert.equal(parseCents('12.3400'), 1234n)
    assert.throws(() => parseCents('12.345'))
    assert.throws(() => parseCents('1e3'))
  })

  test('cents format with two decimals; 0.1 + 0.2 is 0.30', ({ assert }) => {
    assert.equal(formatCents(parseCents('0.10') + parseCents('0.20')), '0.30')
    assert.equal(formatCents(0n), '0.00')
    assert.equal(formatCents(5n), '0.05')
    assert.equal(formatCents(-5n), '-0.05')
    assert.equal(formatCents(9999999999999999999n), '99999999999999999.99')
  })

  test('round trip for any amount', ({ assert }) => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), (cents) => {
        assert.equal(parseCents(formatCents(cents)), cents)
      })
    )
  })
})

test.group('Reporting success rate: successful / total × 100, half-up to 2 places', () => {
  test('hand-computed values', ({ assert }) => {
    assert.isNull(successRatePercent(0n, 0n))
    assert.equal(successRatePercent(0n, 5n), '0.00')
    assert.equal(successRatePercent(5n, 5n), '100.00')
    assert.equal(successRatePercent(1n, 3n), '33.33') // 33.333…
    assert.equal(successRatePercent(2n, 3n), '66.67') // 66.666…
    assert.equal(successRatePercent(1n, 8n), '12.50')
    assert.equal(successRatePercent(1n, 16n), '6.25') // 6.25 exactly
    assert.equal(successRatePercent(1n, 32n), '3.13') // 3.125 → half up
    assert.equal(successRatePercent(1n, 1600n), '0.06') // 0.0625
    assert.equal(successRatePercent(1n, 80000n), '0.00') // 0.00125
    assert.equal(successRatePercent(1n, 40000n), '0.00') // 0.0025 → 0.00
    assert.equal(successRatePercent(1n, 20000n), '0.01') // 0.005 → half up
    assert.equal(successRatePercent(199999n, 200000n), '100.00') // 99.9995 → half up
  })

  test('property: matches decimal half-up rounding of the exact fraction', ({ assert }) => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        (total, raw) => {
          const successful = raw % (total + 1n)
          const rate = successRatePercent(successful, total)!
          const hundredths = BigInt(rate.replace('.', ''))
          // |hundredths - 10000·s/t| <= 1/2, ties upward.
          const doubled = 2n * (hundredths * total - successful * 10_000n)
          assert.isTrue(doubled <= total && doubled > -total, `${successful}/${total} → ${rate}`)
        }
      )
    )
  })
})

test.group('Reporting read plan: rollup months and days plus raw edges tile each bucket', () => {
  const DAY = 86_400_000_000n
  test('a bucket holding no whole UTC day is read raw; whole months come from month rows', ({
    assert,
  }) => {
    const manilaDay = {
      from: 1772294400000000n - 8n * 3_600_000_000n,
      to: 1772294400000000n + 16n * 3_600_000_000n,
    }
    assert.deepEqual(planReads([manilaDay]), {
      raw: [{ bucket: 0, ...manilaDay }],
      day: [],
      month: [],
    })
    const from = Date.parse('2016-11-21T16:00:00Z') * 1000
    const to = Date.parse('2026-11-21T16:00:00Z') * 1000
    const plan = planReads([{ from: BigInt(from), to: BigInt(to) }])
    const at = (iso: string) => BigInt(Date.parse(iso)) * 1000n
    assert.deepEqual(plan.raw, [
      { bucket: 0, from: BigInt(from), to: at('2016-11-22T00:00:00Z') },
      { bucket: 0, from: at('2026-11-21T00:00:00Z'), to: BigInt(to) },
    ])
    assert.deepEqual(plan.day, [
      { bucket: 0, from: at('2016-11-22T00:00:00Z'), to: at('2016-12-01T00:00:00Z') },
      { bucket: 0, from: at('2026-11-01T00:00:00Z'), to: at('2026-11-21T00:00:00Z') },
    ])
    assert.deepEqual(plan.month, [
      { bucket: 0, from: at('2016-12-01T00:00:00Z'), to: at('2026-11-01T00:00:00Z') },
    ])
  })

  test('property: the parts of each bucket are disjoint, aligned, and cover it exactly', ({
    assert,
  }) => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.bigInt({ min: -(10n ** 16n), max: 10n ** 16n }),
            fc.bigInt({ min: 1n, max: 800n * DAY })
          ),
          { minLength: 1, maxLength: 5 }
        ),
        (ranges) => {
          const buckets = ranges.map(([from, length]) => ({ from, to: from + length }))
          const plan = planReads(buckets)
          buckets.forEach((bucket, index) => {
            const parts = [...plan.raw, ...plan.day, ...plan.month]
              .filter((part) => part.bucket === index)
              .sort((a, b) => (a.from < b.from ? -1 : 1))
            assert.equal(parts[0].from, bucket.from)
            assert.equal(parts[parts.length - 1].to, bucket.to)
            parts.forEach((part, at) => {
              assert.isTrue(part.from < part.to)
              if (at > 0) assert.equal(part.from, parts[at - 1].to)
            })
            for (const part of plan.day.filter((p) => p.bucket === index)) {
              assert.equal(((part.from % DAY) + DAY) % DAY, 0n)
              assert.equal(((part.to % DAY) + DAY) % DAY, 0n)
            }
            for (const part of plan.month.filter((p) => p.bucket === index)) {
              for (const edge of [part.from, part.to]) {
                const date = new Date(Number(edge / 1000n))
                assert.equal(date.getUTCDate(), 1)
                assert.equal(((edge % DAY) + DAY) % DAY, 0n)
              }
            }
          })
        }
      )
    )
  })
})
