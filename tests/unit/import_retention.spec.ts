import { test } from '@japa/runner'
import { parseTimestamp } from '#validators/rules/timestamp'
import { retainUntilDefault } from '#services/collections/import/import_retention'

const at = (value: string) => parseTimestamp(value)!

test.group('Default retain_until of an imported event (captured_at + months, UTC)', () => {
  test('moves the UTC month, keeping the time of day and microseconds', ({ assert }) => {
    assert.equal(
      retainUntilDefault(at('2026-03-01T10:00:00.250+08:00'), 12),
      '2027-03-01 02:00:00.250000+00'
    )
    assert.equal(
      retainUntilDefault(at('2026-11-15T00:00:00.000001Z'), 3),
      '2027-02-15 00:00:00.000001+00'
    )
  })

  test('a day past the end of the new month becomes its last day', ({ assert }) => {
    assert.equal(retainUntilDefault(at('2026-01-31T12:00:00Z'), 1), '2026-02-28 12:00:00.000000+00')
    assert.equal(retainUntilDefault(at('2024-01-31T12:00:00Z'), 1), '2024-02-29 12:00:00.000000+00')
    assert.equal(
      retainUntilDefault(at('2024-02-29T12:00:00Z'), 12),
      '2025-02-28 12:00:00.000000+00'
    )
    assert.equal(
      retainUntilDefault(at('2000-02-29T12:00:00Z'), 48),
      '2004-02-29 12:00:00.000000+00'
    )
    assert.equal(
      retainUntilDefault(at('2099-02-28T12:00:00Z'), 12),
      '2100-02-28 12:00:00.000000+00'
    )
  })

  test('instants before 1970 keep their fraction', ({ assert }) => {
    assert.equal(
      retainUntilDefault(at('1969-12-31T23:59:59.5Z'), 1),
      '1970-01-31 23:59:59.500000+00'
    )
  })

  test('past year 9999 it is the last instant of 9999; before year 1, null (PostgreSQL computes it)', ({
    assert,
  }) => {
    assert.isNull(retainUntilDefault(at('0001-01-01T00:00:00+14:00'), 12))
    assert.equal(
      retainUntilDefault(at('9999-06-01T00:00:00Z'), 12),
      '9999-12-31 23:59:59.999999+00'
    )
    assert.equal(retainUntilDefault(at('9999-06-01T00:00:00Z'), 6), '9999-12-01 00:00:00.000000+00')
    assert.equal(retainUntilDefault(at('0001-01-01T00:00:00Z'), 1), '0001-02-01 00:00:00.000000+00')
  })
})
