/*
| app/platform/pg_timestamptz.ts reads timestamptz text as the driver's parser
| (postgres-date, through pg-types) does: compared here on PostgreSQL's UTC output and
| on every other form.
*/
import { createRequire } from 'node:module'
import { test } from '@japa/runner'
import fc from 'fast-check'
import { parseTimestamptz } from '#platform/pg_timestamptz'

// The driver's own parser, loaded from where pg-types loads it.
const requireFromPgTypes = createRequire(createRequire(import.meta.url).resolve('pg-types'))
const postgresDate: (text: string) => Date | number | null = requireFromPgTypes('postgres-date')

const pad = (value: number, width: number) => String(value).padStart(width, '0')

/** PostgreSQL's text of a timestamptz in a UTC session: microseconds, trailing zeros dropped. */
const utcOutput = fc
  .record({
    year: fc.integer({ min: 1, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    microseconds: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999_999 })),
  })
  .map(({ year, month, day, hour, minute, second, microseconds }) => {
    const fraction = microseconds === 0 ? '' : `.${pad(microseconds, 6).replace(/0+$/, '')}`
    return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)} ${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction}+00`
  })

/** Texts near that form: other offsets, BC, infinity, stray characters, truncations. */
const otherText = fc.oneof(
  utcOutput.map((text) => text.replace(/\+00$/, '+05:45')),
  utcOutput.map((text) => `${text} BC`),
  utcOutput.map((text) => text.replace(/\+00$/, '-03')),
  utcOutput.chain((text) =>
    fc
      .tuple(fc.nat({ max: text.length - 1 }), fc.constantFrom('x', '.', ' ', '9', '', '-', '+'))
      .map(([index, character]) => text.slice(0, index) + character + text.slice(index + 1))
  ),
  utcOutput.map((text) => `1${text}`),
  fc.constantFrom('infinity', '-infinity', '2026-11-26', '2026-11-26 10:00:00.+00', '+00'),
  fc.string({ maxLength: 30 })
)

function sameResult(text: string) {
  const expected = postgresDate(text)
  const actual = parseTimestamptz(text)
  if (expected instanceof Date && actual instanceof Date) {
    return Object.is(expected.getTime(), actual.getTime())
  }
  return Object.is(expected, actual)
}

test.group('timestamptz parser (app/platform/pg_timestamptz.ts)', () => {
  test('reads PostgreSQL UTC output as the same instant as postgres-date', () => {
    fc.assert(fc.property(utcOutput, sameResult), { numRuns: 20_000 })
  })

  test('answers every other text as postgres-date does', () => {
    fc.assert(fc.property(otherText, sameResult), { numRuns: 20_000 })
  })

  test('keeps milliseconds and years before 1000 as postgres-date does', ({ assert }) => {
    for (const text of [
      '2026-11-26 14:55:07.123456+00',
      '2026-11-26 14:55:07.29+00',
      '2026-11-26 14:55:07.999999+00',
      '0999-01-01 00:00:00+00',
      '0050-06-01 12:00:00+00',
    ]) {
      assert.equal(parseTimestamptz(text)!.valueOf(), postgresDate(text)!.valueOf(), text)
    }
    assert.equal(
      (parseTimestamptz('2026-11-26 14:55:07.5+00') as Date).toISOString(),
      '2026-11-26T14:55:07.500Z'
    )
  })

  test('is the driver parser for timestamptz columns', async ({ assert }) => {
    const { default: pg } = await import('pg')
    await import('#config/database')
    assert.strictEqual(pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ), parseTimestamptz)
  })
})
