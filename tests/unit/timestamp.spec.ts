import { test } from '@japa/runner'
import { parseTimestamp } from '#validators/rules/timestamp'

test.group('Timestamp grammar of collection filters (portal-api.md › Collections)', () => {
  test('accepts Z and offsets up to ±14:00, with up to six fractional digits', ({ assert }) => {
    for (const value of [
      '2026-03-01T00:00:00Z',
      '2026-03-01T00:00:00+08:00',
      '2026-03-01T00:00:00.123456-14:00',
      '2026-03-01T23:59:59.1+14:00',
      '2024-02-29T12:00:00Z',
      '0001-01-01T00:00:00Z',
    ]) {
      assert.isNotNull(parseTimestamp(value), value)
    }
  })

  test('rejects other shapes, unreal dates, year zero and offsets past 14:00', ({ assert }) => {
    for (const value of [
      '2026-03-01',
      '2026-03-01T00:00:00',
      '2026-03-01 00:00:00Z',
      '2026-03-01T00:00Z',
      '2026-03-01T00:00:00.1234567Z',
      '2026-03-01T00:00:00+0800',
      '2026-03-01T00:00:00+14:01',
      '2026-03-01T00:00:00-15:00',
      '2026-02-30T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T00:60:00Z',
      '2026-03-01T00:00:60Z',
      '2026-13-01T00:00:00Z',
      '２026-03-01T00:00:00Z',
      '',
    ]) {
      assert.isNull(parseTimestamp(value), value)
    }
    assert.isNull(parseTimestamp(20260301))
  })

  test('keeps microseconds exactly and honours the offset', ({ assert }) => {
    const a = parseTimestamp('2026-03-01T00:00:00.000001+08:00')!
    const b = parseTimestamp('2026-02-29T16:00:00.000002Z'.replace('02-29', '02-28'))!
    assert.equal(a.epochMicros + 1n, b.epochMicros)
    assert.equal(a.dateTime.toUTC().toISO(), '2026-02-28T16:00:00.000Z')
  })
})
