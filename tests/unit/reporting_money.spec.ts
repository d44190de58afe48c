import { test } from '@japa/runner'
import fc from 'fast-check'
import { formatCents, parseCents, successRatePercent } from '#support/money'
import { planReads } from '#services/collections/reporting/query_plan'

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

test.group('Reporting read plan: signed rollup months and days plus raw edges', () => {
  const DAY = 86_400_000_000n
  const HOUR = 3_600_000_000n
  const at = (iso: string) => BigInt(Date.parse(iso)) * 1000n

  test('a bucket holding no whole UTC day is read raw', ({ assert }) => {
    const manilaDay = { from: at('2026-02-28T16:00:00Z'), to: at('2026-03-01T16:00:00Z') }
    assert.deepEqual(planReads([manilaDay]), {
      raw: [{ bucket: 0, sign: 1, ...manilaDay }],
      day: [],
      month: [],
    })
  })

  test('a Manila month is the whole UTC month, plus the hours before it, minus the hours at its end', ({
    assert,
  }) => {
    const plan = planReads([{ from: at('2026-02-28T16:00:00Z'), to: at('2026-03-31T16:00:00Z') }])
    assert.deepEqual(plan, {
      raw: [
        { bucket: 0, sign: 1, from: at('2026-02-28T16:00:00Z'), to: at('2026-03-01T00:00:00Z') },
        { bucket: 0, sign: -1, from: at('2026-03-31T16:00:00Z'), to: at('2026-04-01T00:00:00Z') },
      ],
      day: [],
      month: [
        { bucket: 0, sign: 1, from: at('2026-03-01T00:00:00Z'), to: at('2026-04-01T00:00:00Z') },
      ],
    })
  })

  test('a ten-year summary reads month rows, a few day rows and at most two days of raw rows', ({
    assert,
  }) => {
    const plan = planReads([{ from: at('2016-11-21T16:00:00Z'), to: at('2026-11-21T16:00:00Z') }])
    const rawMicros = plan.raw.reduce((total, part) => total + (part.to - part.from), 0n)
    assert.isTrue(rawMicros <= 2n * DAY)
    const days = plan.day.reduce((total, part) => total + (part.to - part.from) / DAY, 0n)
    assert.isTrue(days <= 62n, String(days))
  })

  test('property: the signed parts of each bucket cover exactly its instants, and rollup parts are aligned', ({
    assert,
  }) => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.bigInt({ min: -(10n ** 16n), max: 10n ** 16n }),
            fc.bigInt({ min: 1n, max: 800n * DAY })
          ),
          { minLength: 1, maxLength: 4 }
        ),
        fc.array(fc.bigInt({ min: -HOUR * 24n * 40n, max: 900n * DAY }), {
          minLength: 20,
          maxLength: 20,
        }),
        (ranges, probes) => {
          const buckets = ranges.map(([from, length]) => ({ from, to: from + length }))
          const plan = planReads(buckets)
          const parts = [...plan.raw, ...plan.day, ...plan.month]
          buckets.forEach((bucket, index) => {
            // Probe instants in and around the bucket, its edges included.
            const points = [
              bucket.from,
              bucket.to - 1n,
              bucket.to,
              bucket.from - 1n,
              ...probes.map((probe) => bucket.from + probe),
            ]
            for (const point of points) {
              const coverage = parts
                .filter((part) => part.bucket === index && part.from <= point && point < part.to)
                .reduce((total, part) => total + part.sign, 0)
              const inside = point >= bucket.from && point < bucket.to ? 1 : 0
              assert.equal(coverage, inside, `bucket ${index} at ${point}`)
            }
          })
          for (const part of parts) assert.isTrue(part.from < part.to)
          for (const part of plan.day) {
            assert.equal(((part.from % DAY) + DAY) % DAY, 0n)
            assert.equal(((part.to % DAY) + DAY) % DAY, 0n)
          }
          for (const part of plan.month) {
            for (const edge of [part.from, part.to]) {
              assert.equal(new Date(Number(edge / 1000n)).getUTCDate(), 1)
              assert.equal(((edge % DAY) + DAY) % DAY, 0n)
            }
          }
        }
      )
    )
  })
})
