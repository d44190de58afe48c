/*
| parseTimestamp (app/validators/rules/timestamp.ts) does its calendar arithmetic with
| plain integers, for speed: filters, reporting ranges and every imported line go
| through it. This compares it with a reference built on luxon's calendar (the
| former implementation) on every field's edges and on seeded random values.
*/
import { test } from '@japa/runner'
import type { Assert } from '@japa/assert'
import { DateTime } from 'luxon'
import { parseTimestamp } from '#validators/rules/timestamp'

const GRAMMAR =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:Z|([+-])(\d{2}):(\d{2}))$/

/** The grammar checked field by field, the calendar and the instant left to luxon. */
function reference(value: unknown): { epochMicros: bigint; millis: number } | null {
  if (typeof value !== 'string') return null
  const match = GRAMMAR.exec(value)
  if (!match) return null
  const [, y, mo, d, h, mi, s, fraction = '', sign, offH, offM] = match
  if (Number(y) === 0 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null
  if (sign && Number(offM) > 59) return null
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM)) : 0
  if (Math.abs(offset) > 14 * 60) return null
  const micros = Number(fraction.padEnd(6, '0'))
  const zone = `UTC${offset >= 0 ? '+' : '-'}${Math.floor(Math.abs(offset) / 60)}:${String(Math.abs(offset) % 60).padStart(2, '0')}`
  const dateTime = DateTime.fromObject(
    {
      year: Number(y),
      month: Number(mo),
      day: Number(d),
      hour: Number(h),
      minute: Number(mi),
      second: Number(s),
      millisecond: Math.floor(micros / 1000),
    },
    { zone }
  )
  if (!dateTime.isValid) return null
  const millis = dateTime.toMillis()
  return { millis, epochMicros: BigInt(Math.floor(millis / 1000)) * 1_000_000n + BigInt(micros) }
}

/** Both null, or the same instant to the microsecond, the same text and DateTime. */
function assertSame(assert: Assert, value: unknown) {
  const expected = reference(value)
  const parsed = parseTimestamp(value)
  if (expected === null || parsed === null) {
    assert.equal(parsed, expected, String(value))
    return
  }
  assert.equal(parsed.epochMicros, expected.epochMicros, String(value))
  assert.equal(parsed.sql, value)
  assert.equal(parsed.dateTime.toMillis(), expected.millis, String(value))
}

test.group('parseTimestamp against a luxon reference', () => {
  test('agrees with the reference on the grammar tests and on every field edge', ({ assert }) => {
    const values: unknown[] = [
      '2026-03-01T00:00:00Z',
      '2026-03-01T00:00:00+08:00',
      '2026-03-01T00:00:00.123456-14:00',
      '2026-03-01T23:59:59.1+14:00',
      '2024-02-29T12:00:00Z',
      '0001-01-01T00:00:00Z',
      '0001-01-01T00:00:00+14:00',
      '0099-12-31T23:59:59.999999-14:00',
      '9999-12-31T23:59:59.999999-14:00',
      '1969-12-31T23:59:59.999999Z',
      '1900-02-29T00:00:00Z',
      '2000-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2026-03-01',
      '2026-03-01T00:00:00',
      '2026-03-01 00:00:00Z',
      '2026-03-01T00:00Z',
      '2026-03-01T00:00:00.1234567Z',
      '2026-03-01T00:00:00.Z',
      '2026-03-01T00:00:00+0800',
      '2026-03-01T00:00:00+14:01',
      '2026-03-01T00:00:00-15:00',
      '2026-03-01T00:00:00+13:60',
      '2026-02-30T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-13-10T00:00:00Z',
      '2026-01-00T00:00:00Z',
      '2026-01-32T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-01-01T23:59:60Z',
      '0000-01-01T00:00:00Z',
      '2026-03-01T00:00:00z',
      ' 2026-03-01T00:00:00Z',
      '2026-03-01T00:00:00Z\n',
      '２０２６-03-01T00:00:00Z',
      null,
      20260301,
      undefined,
      {},
    ]
    for (const value of values) assertSame(assert, value)
  })

  test('agrees with the reference on 20,000 random values near the edges', ({ assert }) => {
    // A fixed linear congruential sequence: the same values every run.
    let state = 12345
    const next = (bound: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31
      return state % bound
    }
    const two = (n: number) => String(n).padStart(2, '0')
    for (let index = 0; index < 20_000; index++) {
      const year = [0, 1, 99, 100, 1900, 1970, 2000, 2024, 2025, 2100, 9999][next(11)]
      const fraction = ['', '.5', '.000001', '.123456', '.999999'][next(5)]
      const offset = [
        'Z',
        '+00:00',
        '-00:00',
        '+14:00',
        '-14:00',
        '+13:59',
        '+14:01',
        '-09:30',
        '+05:60',
      ][next(9)]
      const value =
        `${String(year).padStart(4, '0')}-${two(next(14))}-${two(next(33))}` +
        `T${two(next(25))}:${two(next(61))}:${two(next(61))}${fraction}${offset}`
      assertSame(assert, value)
    }
  })
})
