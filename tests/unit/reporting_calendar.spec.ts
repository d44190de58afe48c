import { test } from '@japa/runner'
import fc from 'fast-check'
import { IANAZone } from 'luxon'
import { startOfLocalDate } from '#services/collections/reporting/calendar'
import type { Interval } from '#models/collections_vocabulary'
import { formatInstant, formatInstantAt, rangeLimit } from '#support/zoned_instants'
import { buildBuckets } from '#services/collections/reporting/buckets'
import { civilDate, daysFromCivil, sqlInstant } from '#support/instants'
import { isIanaTimezone, zoneOffsetMs } from '#support/time_zones'
import { IANA_TZDATA_VERSION, IANA_ZONE_NAMES } from '#support/iana_zones'
import { parseTimestamp } from '#validators/rules/timestamp'

const micros = (value: string) => {
  const parsed = parseTimestamp(value)
  if (!parsed) throw new Error(`bad fixture ${value}`)
  return parsed.epochMicros
}

/** Zones of the property tests: DST both ways, 30- and 45-minute offsets, a skipped day. */
const PROPERTY_ZONES = [
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'Asia/Manila',
  'Pacific/Apia',
  'America/Sao_Paulo',
  'Asia/Kathmandu',
  'Africa/Casablanca',
  'UTC',
]

/** The buckets as [period, from, to, partial, hours] in the zone's own notation. */
function chart(from: string, to: string, zone: string, interval: Interval) {
  const result = buildBuckets(micros(from), micros(to), zone, interval)
  if (!result.ok) throw new Error('over the limit')
  return result.buckets.map((bucket) => [
    bucket.period,
    formatInstant(bucket.from, zone),
    formatInstant(bucket.to, zone),
    bucket.partial,
    Number(bucket.to - bucket.from) / 3_600_000_000,
  ])
}

test.group('Reporting calendar: days across daylight-saving changes', () => {
  test('America/New_York: 23-hour spring day and 25-hour autumn day', ({ assert }) => {
    assert.deepEqual(
      chart('2026-03-07T00:00:00-05:00', '2026-03-10T00:00:00-04:00', 'America/New_York', 'day'),
      [
        [
          '2026-03-07',
          '2026-03-07T00:00:00.000000-05:00',
          '2026-03-08T00:00:00.000000-05:00',
          false,
          24,
        ],
        [
          '2026-03-08',
          '2026-03-08T00:00:00.000000-05:00',
          '2026-03-09T00:00:00.000000-04:00',
          false,
          23,
        ],
        [
          '2026-03-09',
          '2026-03-09T00:00:00.000000-04:00',
          '2026-03-10T00:00:00.000000-04:00',
          false,
          24,
        ],
      ]
    )
    assert.deepEqual(
      chart('2026-11-01T00:00:00-04:00', '2026-11-02T00:00:00-05:00', 'America/New_York', 'day'),
      [
        [
          '2026-11-01',
          '2026-11-01T00:00:00.000000-04:00',
          '2026-11-02T00:00:00.000000-05:00',
          false,
          25,
        ],
      ]
    )
  })

  test('Europe/London: GMT to BST and back', ({ assert }) => {
    assert.deepEqual(
      chart('2026-03-29T00:00:00Z', '2026-03-30T00:00:00+01:00', 'Europe/London', 'day'),
      [
        [
          '2026-03-29',
          '2026-03-29T00:00:00.000000+00:00',
          '2026-03-30T00:00:00.000000+01:00',
          false,
          23,
        ],
      ]
    )
    assert.deepEqual(
      chart('2026-10-25T00:00:00+01:00', '2026-10-26T00:00:00Z', 'Europe/London', 'day'),
      [
        [
          '2026-10-25',
          '2026-10-25T00:00:00.000000+01:00',
          '2026-10-26T00:00:00.000000+00:00',
          false,
          25,
        ],
      ]
    )
  })

  test('Australia/Lord_Howe: the 30-minute shift makes 23.5 and 24.5-hour days', ({ assert }) => {
    assert.deepEqual(
      chart('2026-10-04T00:00:00+10:30', '2026-10-05T00:00:00+11:00', 'Australia/Lord_Howe', 'day'),
      [
        [
          '2026-10-04',
          '2026-10-04T00:00:00.000000+10:30',
          '2026-10-05T00:00:00.000000+11:00',
          false,
          23.5,
        ],
      ]
    )
    assert.deepEqual(
      chart('2026-04-05T00:00:00+11:00', '2026-04-06T00:00:00+10:30', 'Australia/Lord_Howe', 'day'),
      [
        [
          '2026-04-05',
          '2026-04-05T00:00:00.000000+11:00',
          '2026-04-06T00:00:00.000000+10:30',
          false,
          24.5,
        ],
      ]
    )
  })

  test('Asia/Manila: every day 24 hours at +08:00, midnight local is 16:00 UTC', ({ assert }) => {
    const days = chart(
      '2025-12-30T00:00:00+08:00',
      '2026-01-02T00:00:00+08:00',
      'Asia/Manila',
      'day'
    )
    assert.deepEqual(
      days.map((day) => [day[0], day[1], day[4]]),
      [
        ['2025-12-30', '2025-12-30T00:00:00.000000+08:00', 24],
        ['2025-12-31', '2025-12-31T00:00:00.000000+08:00', 24],
        ['2026-01-01', '2026-01-01T00:00:00.000000+08:00', 24],
      ]
    )
    assert.equal(
      formatInstant(micros('2025-12-30T16:00:00Z'), 'Asia/Manila'),
      '2025-12-31T00:00:00.000000+08:00'
    )
  })

  test('Pacific/Apia skipped 2011-12-30: no bucket for it, 29 December ends where 31 December begins', ({
    assert,
  }) => {
    assert.deepEqual(
      chart('2011-12-29T00:00:00-10:00', '2012-01-01T00:00:00+14:00', 'Pacific/Apia', 'day'),
      [
        [
          '2011-12-29',
          '2011-12-29T00:00:00.000000-10:00',
          '2011-12-31T00:00:00.000000+14:00',
          false,
          24,
        ],
        [
          '2011-12-31',
          '2011-12-31T00:00:00.000000+14:00',
          '2012-01-01T00:00:00.000000+14:00',
          false,
          24,
        ],
      ]
    )
    // December 2011 in Apia had 30 days (from -10:00 daylight time to +14:00 daylight time).
    assert.deepEqual(
      chart('2011-12-01T00:00:00-10:00', '2012-01-01T00:00:00+14:00', 'Pacific/Apia', 'month').map(
        (m) => m[4]
      ),
      [30 * 24]
    )
  })

  test('a skipped midnight starts the day at the transition; a repeated midnight at its second occurrence', ({
    assert,
  }) => {
    // America/Sao_Paulo 2018: clocks went 00:00 → 01:00 on 4 November, 00:00 → 23:00 on 18 February.
    assert.deepEqual(
      chart('2018-11-03T00:00:00-03:00', '2018-11-05T00:00:00-02:00', 'America/Sao_Paulo', 'day'),
      [
        [
          '2018-11-03',
          '2018-11-03T00:00:00.000000-03:00',
          '2018-11-04T01:00:00.000000-02:00',
          false,
          24,
        ],
        [
          '2018-11-04',
          '2018-11-04T01:00:00.000000-02:00',
          '2018-11-05T00:00:00.000000-02:00',
          false,
          23,
        ],
      ]
    )
    assert.deepEqual(
      chart('2018-02-17T00:00:00-02:00', '2018-02-18T12:00:00-03:00', 'America/Sao_Paulo', 'day'),
      [
        [
          '2018-02-17',
          '2018-02-17T00:00:00.000000-02:00',
          '2018-02-18T00:00:00.000000-03:00',
          false,
          25,
        ],
        [
          '2018-02-18',
          '2018-02-18T00:00:00.000000-03:00',
          '2018-02-18T12:00:00.000000-03:00',
          true,
          12,
        ],
      ]
    )
    // An instant in the repeated hour (23:30 the second time) belongs to 17 February.
    const repeated = buildBuckets(
      micros('2018-02-18T02:30:00Z'),
      micros('2018-02-18T04:00:00Z'),
      'America/Sao_Paulo',
      'day'
    )
    assert.deepEqual(repeated.ok && repeated.buckets.map((bucket) => bucket.period), [
      '2018-02-17',
      '2018-02-18',
    ])
  })
})

test.group('Reporting calendar: months, years, leap years, clipping', () => {
  test('months follow the local calendar, February of a leap year has 29 days', ({ assert }) => {
    const months = chart(
      '2024-01-01T00:00:00+08:00',
      '2024-04-01T00:00:00+08:00',
      'Asia/Manila',
      'month'
    )
    assert.deepEqual(
      months.map((month) => [month[0], (month[4] as number) / 24]),
      [
        ['2024-01', 31],
        ['2024-02', 29],
        ['2024-03', 31],
      ]
    )
    assert.equal(
      chart('2023-02-01T00:00:00Z', '2023-03-01T00:00:00Z', 'UTC', 'month')[0][4],
      28 * 24
    )
  })

  test('years follow the local calendar: 366 days in 2024, 365 in 2100 (not a leap year)', ({
    assert,
  }) => {
    assert.deepEqual(
      chart('2024-01-01T00:00:00+08:00', '2025-01-01T00:00:00+08:00', 'Asia/Manila', 'year'),
      [
        [
          '2024',
          '2024-01-01T00:00:00.000000+08:00',
          '2025-01-01T00:00:00.000000+08:00',
          false,
          366 * 24,
        ],
      ]
    )
    assert.equal(
      chart('2100-01-01T00:00:00Z', '2101-01-01T00:00:00Z', 'UTC', 'year')[0][4],
      365 * 24
    )
    assert.equal(
      chart('2000-02-01T00:00:00Z', '2000-03-01T00:00:00Z', 'UTC', 'month')[0][4],
      29 * 24
    )
  })

  test('clipped first and last buckets are partial; their bounds are the range, to the microsecond', ({
    assert,
  }) => {
    assert.deepEqual(
      chart('2026-01-15T10:00:00.123456+08:00', '2026-03-01T06:00:00Z', 'Asia/Manila', 'month'),
      [
        [
          '2026-01',
          '2026-01-15T10:00:00.123456+08:00',
          '2026-02-01T00:00:00.000000+08:00',
          true,
          397.99996570666667,
        ],
        [
          '2026-02',
          '2026-02-01T00:00:00.000000+08:00',
          '2026-03-01T00:00:00.000000+08:00',
          false,
          672,
        ],
        [
          '2026-03',
          '2026-03-01T00:00:00.000000+08:00',
          '2026-03-01T14:00:00.000000+08:00',
          true,
          14,
        ],
      ]
    )
  })

  test('a `to` exactly on a boundary adds no bucket; one microsecond later adds a partial one', ({
    assert,
  }) => {
    assert.lengthOf(
      chart('2026-03-01T00:00:00+08:00', '2026-03-03T00:00:00+08:00', 'Asia/Manila', 'day'),
      2
    )
    const after = chart(
      '2026-03-01T00:00:00+08:00',
      '2026-03-03T00:00:00.000001+08:00',
      'Asia/Manila',
      'day'
    )
    assert.lengthOf(after, 3)
    assert.deepEqual(after[2].slice(0, 4), [
      '2026-03-03',
      '2026-03-03T00:00:00.000000+08:00',
      '2026-03-03T00:00:00.000001+08:00',
      true,
    ])
  })

  test('the same instants in another zone: other labels and bucket counts', ({ assert }) => {
    const from = '2026-03-01T00:00:00+08:00'
    const to = '2026-03-02T00:00:00+08:00'
    assert.deepEqual(
      chart(from, to, 'Asia/Manila', 'day').map((day) => day[0]),
      ['2026-03-01']
    )
    assert.deepEqual(
      chart(from, to, 'UTC', 'day').map((day) => [day[0], day[3]]),
      [
        ['2026-02-28', true],
        ['2026-03-01', true],
      ]
    )
  })
})

test.group('Reporting calendar: bucket limits count partial and empty buckets', () => {
  const cases: Array<[Interval, string, string, number]> = [
    ['day', '2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z', 366], // leap year: exactly 366
    ['day', '2024-01-01T00:00:00Z', '2025-01-01T00:00:00.000001Z', 367],
    ['day', '2024-01-01T12:00:00Z', '2025-01-01T00:00:00Z', 366], // partial first counts
    ['day', '2024-01-01T12:00:00Z', '2025-01-01T12:00:00Z', 367],
    ['month', '2016-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 120],
    ['month', '2016-01-15T00:00:00Z', '2026-01-15T00:00:00Z', 121],
    ['year', '2016-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 10],
    ['year', '2016-06-01T00:00:00Z', '2026-06-01T00:00:00Z', 11],
  ]
  for (const [interval, from, to, count] of cases) {
    test(`${interval} ${from} → ${to}: ${count} buckets`, ({ assert }) => {
      const result = buildBuckets(micros(from), micros(to), 'UTC', interval)
      if (count > { day: 366, month: 120, year: 10 }[interval]) {
        assert.isFalse(result.ok)
      } else {
        assert.isTrue(result.ok)
        assert.lengthOf(result.ok ? result.buckets : [], count)
      }
      const unlimited = buildBuckets(micros(from), micros(to), 'UTC', interval, 10_000)
      assert.lengthOf(unlimited.ok ? unlimited.buckets : [], count)
    })
  }
})

test.group('Reporting calendar: the ten-calendar-year bound', () => {
  test('ten local calendar years from `from`, microseconds kept', ({ assert }) => {
    assert.equal(
      formatInstant(
        rangeLimit(micros('2016-03-01T10:00:00.000001+08:00'), 'Asia/Manila'),
        'Asia/Manila'
      ),
      '2026-03-01T10:00:00.000001+08:00'
    )
  })

  test('a 29 February anniversary is clipped to 28 February', ({ assert }) => {
    assert.equal(
      formatInstant(rangeLimit(micros('2024-02-29T00:00:00+08:00'), 'Asia/Manila'), 'Asia/Manila'),
      '2034-02-28T00:00:00.000000+08:00'
    )
    // 29 February 2020 → 2030 is not a leap year either; 2016 → 2026 neither.
    assert.equal(
      formatInstant(rangeLimit(micros('2016-02-29T23:59:59Z'), 'UTC'), 'UTC'),
      '2026-02-28T23:59:59.000000+00:00'
    )
  })

  test('measured in the reporting timezone: local wall time kept across offsets', ({ assert }) => {
    // 2016-07-01 00:00 in New York is EDT (-04:00); ten years later it is EDT again.
    assert.equal(
      formatInstant(
        rangeLimit(micros('2016-07-01T00:00:00-04:00'), 'America/New_York'),
        'America/New_York'
      ),
      '2026-07-01T00:00:00.000000-04:00'
    )
    // The same instant read in Manila is 2016-07-01 12:00 local.
    assert.equal(
      formatInstant(rangeLimit(micros('2016-07-01T00:00:00-04:00'), 'Asia/Manila'), 'Asia/Manila'),
      '2026-07-01T12:00:00.000000+08:00'
    )
  })
})

test.group('Reporting calendar: zone names and formatting', () => {
  test('IANA names are accepted, UTC and Etc/GMT+8 included (they are IANA zone names)', ({
    assert,
  }) => {
    for (const name of [
      'Asia/Manila',
      'America/New_York',
      'UTC',
      'Etc/UTC',
      'Etc/GMT+8',
      'Australia/Lord_Howe',
      'America/Argentina/Buenos_Aires',
      'America/Port-au-Prince',
      'EST5EDT',
      'asia/manila',
    ]) {
      assert.isTrue(isIanaTimezone(name), name)
    }
  })

  test('numeric offsets, UTC+8-style names, unknown names and garbage are refused', ({
    assert,
  }) => {
    for (const name of [
      '+08:00',
      '-0800',
      '+8',
      'UTC+8',
      'GMT+8',
      'UTC+08:00',
      'Z',
      'Asia/Nowhere',
      'garbage',
      '',
      ' Asia/Manila',
      'Asia/Manila ',
      '../etc/passwd',
      'Asia//Manila',
      'A'.repeat(65),
    ]) {
      assert.isFalse(isIanaTimezone(name), name)
    }
  })

  test('timezone: backward links of the IANA database are accepted (US/Eastern, Asia/Calcutta, EST, CST6CDT, GMT...)', ({
    assert,
  }) => {
    for (const name of [
      'US/Eastern',
      'US/Pacific',
      'Asia/Calcutta',
      'Asia/Kolkata',
      'EST',
      'MST',
      'HST',
      'EST5EDT',
      'CST6CDT',
      'MST7MDT',
      'PST8PDT',
      'CET',
      'Etc/GMT+5',
      'Etc/GMT-14',
      'UTC',
      'GMT',
      'Etc/GMT',
      'Zulu',
      'Canada/Saskatchewan',
      'America/Indiana/Indianapolis',
      'us/eastern',
      'ETC/GMT+5',
    ]) {
      assert.isTrue(isIanaTimezone(name), name)
    }
  })

  test('timezone: names outside the IANA database are refused though ICU knows them (BST, AST, SystemV/EST5, US/Pacific-New)', ({
    assert,
  }) => {
    const icuOnly = [
      ...['BST', 'AST', 'SST', 'IST', 'CST', 'PST', 'JST', 'ACT', 'CTT', 'VST', 'NET', 'PRT'],
      ...['MIT', 'AET', 'AGT', 'ART', 'BET', 'CAT', 'CNT', 'EAT', 'ECT', 'IET', 'PLT', 'PNT'],
      ...['SystemV/EST5', 'SystemV/AST4ADT', 'US/Pacific-New', 'Canada/East-Saskatchewan'],
      ...['bst', 'systemv/est5'],
    ]
    for (const name of icuOnly) {
      // The premise: the runtime alone would take them.
      assert.isTrue(IANAZone.isValidZone(name), `ICU knows ${name}`)
      assert.isFalse(isIanaTimezone(name), name)
    }
    // IANA has it, ICU cannot compute it: refused too.
    assert.isFalse(isIanaTimezone('Factory'))
  })

  test('timezone: every name of the committed IANA list is accepted, except those ICU does not know (Factory)', ({
    assert,
  }) => {
    // Documented exceptions (docs/reporting.md › Time zones): in the tz database, not in ICU.
    const unknownToIcu = new Set(['Factory'])
    assert.match(IANA_TZDATA_VERSION, /^\d{4}[a-z]$/)
    assert.isAbove(IANA_ZONE_NAMES.length, 500)
    assert.equal(new Set(IANA_ZONE_NAMES).size, IANA_ZONE_NAMES.length)
    const refused = IANA_ZONE_NAMES.filter((name) => !isIanaTimezone(name))
    assert.deepEqual(refused, [...unknownToIcu])
    for (const name of IANA_ZONE_NAMES) {
      assert.equal(IANAZone.isValidZone(name), !unknownToIcu.has(name), name)
    }
  })

  test('formatting keeps six fractional digits and the local offset; LMT offsets round to the minute, the instant exact', ({
    assert,
  }) => {
    assert.equal(
      formatInstant(micros('2026-03-01T00:00:00.000001Z'), 'Asia/Manila'),
      '2026-03-01T08:00:00.000001+08:00'
    )
    assert.equal(
      formatInstant(micros('2026-06-01T12:00:00Z'), 'Asia/Kathmandu'),
      '2026-06-01T17:45:00.000000+05:45'
    )
    // Manila's local mean time was +08:03:52 (ICU): shown as +08:04, same instant.
    assert.equal(
      formatInstant(micros('1890-01-01T00:00:00Z'), 'Asia/Manila'),
      '1890-01-01T08:04:00.000000+08:04'
    )
  })

  test('property: days tile the range without gaps or overlaps, each 22 to 26 hours unless clipped', ({
    assert,
  }) => {
    const start = micros('2005-01-01T00:00:00Z')
    const span = micros('2030-01-01T00:00:00Z') - start
    fc.assert(
      fc.property(
        fc.constantFrom(...PROPERTY_ZONES),
        fc.bigInt({ min: 0n, max: span }),
        fc.bigInt({ min: 1n, max: 120n * 86_400_000_000n }),
        (zone, offset, length) => {
          const from = start + offset
          const to = from + length
          const result = buildBuckets(from, to, zone, 'day', 10_000)
          assert.isTrue(result.ok)
          const buckets = result.ok ? result.buckets : []
          assert.equal(buckets[0].from, from)
          assert.equal(buckets[buckets.length - 1].to, to)
          buckets.forEach((bucket, index) => {
            if (index > 0) assert.equal(bucket.from, buckets[index - 1].to)
            assert.isTrue(bucket.from < bucket.to)
            const hours = Number(bucket.to - bucket.from) / 3.6e9
            if (!bucket.partial)
              assert.isTrue(hours >= 22 && hours <= 26, `${zone} ${bucket.period} ${hours}`)
            // The local date at the bucket's middle is its label, except inside a repeated hour.
            if (index > 0 && index < buckets.length - 1) {
              const middle = (bucket.from + bucket.to) / 2n
              assert.equal(formatInstant(middle, zone).slice(0, 10), bucket.period)
            }
          })
        }
      ),
      { numRuns: 60 }
    )
  }).timeout(120_000)

  test('days around transitions at midnight carry the offset of their exact start', ({
    assert,
  }) => {
    for (const [zone, from, to] of [
      ['America/Sao_Paulo', '2018-10-30T00:00:00-03:00', '2018-11-08T00:00:00-02:00'],
      ['America/Sao_Paulo', '2019-02-12T00:00:00-02:00', '2019-02-21T00:00:00-03:00'],
      ['Pacific/Apia', '2011-12-25T00:00:00-10:00', '2012-01-05T00:00:00+14:00'],
      ['America/Havana', '2026-03-05T00:00:00-05:00', '2026-03-12T00:00:00-04:00'],
      ['Asia/Beirut', '2025-10-22T00:00:00+03:00', '2025-10-29T00:00:00+02:00'],
    ] as const) {
      const result = buildBuckets(micros(from), micros(to), zone, 'day')
      assert.isTrue(result.ok)
      for (const bucket of result.ok ? result.buckets : []) {
        assert.equal(
          formatInstantAt(bucket.from, bucket.fromOffsetMs),
          formatInstant(bucket.from, zone),
          `${zone} ${bucket.period}`
        )
        assert.equal(
          formatInstantAt(bucket.to, bucket.toOffsetMs),
          formatInstant(bucket.to, zone),
          `${zone} ${bucket.period}`
        )
      }
    }
  })

  test('property: each bucket carries the offset its bounds are formatted at', ({ assert }) => {
    const start = micros('1890-01-01T00:00:00Z')
    const span = micros('2035-01-01T00:00:00Z') - start
    fc.assert(
      fc.property(
        fc.constantFrom(...PROPERTY_ZONES),
        fc.constantFrom<Interval>('day', 'month', 'year'),
        fc.bigInt({ min: 0n, max: span }),
        fc.bigInt({ min: 1n, max: 400n * 86_400_000_000n }),
        (zone, interval, offset, length) => {
          const from = start + offset
          const result = buildBuckets(from, from + length, zone, interval, 10_000)
          assert.isTrue(result.ok)
          for (const bucket of result.ok ? result.buckets : []) {
            assert.equal(
              formatInstantAt(bucket.from, bucket.fromOffsetMs),
              formatInstant(bucket.from, zone)
            )
            assert.equal(
              formatInstantAt(bucket.to, bucket.toOffsetMs),
              formatInstant(bucket.to, zone)
            )
          }
        }
      ),
      { numRuns: 150 }
    )
  }).timeout(120_000)

  test('startOfLocalDate agrees with local midnight where midnight exists once', ({ assert }) => {
    assert.equal(
      startOfLocalDate({ year: 2026, month: 3, day: 8 }, 'America/New_York'),
      Date.parse('2026-03-08T05:00:00Z')
    )
    assert.equal(
      startOfLocalDate({ year: 2026, month: 3, day: 9 }, 'America/New_York'),
      Date.parse('2026-03-09T04:00:00Z')
    )
  })
})

test.group('Reporting calendar › sqlInstant', () => {
  /** Epoch microseconds of a literal sqlInstant wrote (UTC, ISO or PostgreSQL BC form). */
  function readBack(literal: string): bigint {
    const match =
      /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})\.(\d{3})(\d{3})(?:Z|\+00)( BC)?$/.exec(
        literal
      )
    if (!match) throw new Error(`unexpected literal ${literal}`)
    const [, year, month, day, hour, minute, second, milli, micro, bc] = match
    const date = new Date(0)
    date.setUTCFullYear(bc ? 1 - Number(year) : Number(year), Number(month) - 1, Number(day))
    date.setUTCHours(Number(hour), Number(minute), Number(second), Number(milli))
    return BigInt(date.getTime()) * 1000n + BigInt(micro)
  }

  test('exact to the microsecond, at the ends of years 0001-9999 and beyond them', ({ assert }) => {
    for (const [instant, literal] of [
      ['0001-01-01T00:00:00.000000Z', '0001-01-01T00:00:00.000000Z'],
      ['0001-01-01T00:00:00.000000+00:01', '0001-12-31 23:59:00.000000+00 BC'],
      ['9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59.999999Z'],
      ['9999-12-31T23:59:59.999999-14:00', '10000-01-01 13:59:59.999999+00'],
      ['1969-12-31T23:59:59.999999Z', '1969-12-31T23:59:59.999999Z'],
      ['2026-03-08T07:00:00.000001Z', '2026-03-08T07:00:00.000001Z'],
      ['2024-02-29T23:59:59.999999Z', '2024-02-29T23:59:59.999999Z'],
      ['2000-02-29T12:00:00.5Z', '2000-02-29T12:00:00.500000Z'],
      ['1900-03-01T00:00:00Z', '1900-03-01T00:00:00.000000Z'],
      ['2100-02-28T23:59:59Z', '2100-02-28T23:59:59.000000Z'],
      ['1600-12-31T23:59:59.000001Z', '1600-12-31T23:59:59.000001Z'],
    ] as const) {
      assert.equal(sqlInstant(micros(instant)), literal, instant)
    }
  })

  test('reads back as the same instant for any instant of years 0001-9999', ({ assert }) => {
    const first = micros('0001-01-01T00:00:00Z')
    const last = micros('9999-12-31T23:59:59.999999Z')
    fc.assert(
      fc.property(fc.bigInt({ min: first, max: last }), (instant) => {
        assert.equal(readBack(sqlInstant(instant)), instant)
      }),
      { numRuns: 2000 }
    )
  })
})

test.group('Reporting calendar › zoneOffsetMs', () => {
  /** The offset as the runtime reads it, without the cache. */
  function uncachedOffsetMs(zone: string, ms: number) {
    const text = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(ms)
      .find((part) => part.type === 'timeZoneName')!.value
    const match = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(text)!
    if (!match[1]) return 0
    const magnitude =
      (Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4] ?? 0)) * 1000
    return match[1] === '-' ? -magnitude : magnitude
  }

  test('cached offsets equal the runtime offsets, on first and repeated reads, zone by zone', ({
    assert,
  }) => {
    const zones = ['Asia/Manila', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu']
    const instants = fc.sample(fc.integer({ min: -2_500_000_000_000, max: 4_200_000_000_000 }), 300)
    for (const round of [1, 2]) {
      for (const zone of zones) {
        for (const ms of instants) {
          assert.equal(zoneOffsetMs(zone, ms), uncachedOffsetMs(zone, ms), `${zone} ${ms} ${round}`)
        }
      }
    }
    // The same instant in two zones is two entries, not one.
    const instant = Date.parse('2026-07-01T00:00:00Z')
    assert.equal(zoneOffsetMs('Asia/Manila', instant), 8 * 3_600_000)
    assert.equal(zoneOffsetMs('America/New_York', instant), -4 * 3_600_000)
  })
})

test.group('Reporting calendar › civil dates', () => {
  test('civilDate and daysFromCivil agree with Date over years 0001-9999', ({ assert }) => {
    const first = Math.floor(new Date(0).setUTCFullYear(1, 0, 1) / 86_400_000)
    const last = Math.floor(new Date(0).setUTCFullYear(9999, 11, 31) / 86_400_000)
    const days = [
      first,
      last,
      -1,
      0,
      11_016,
      11_017,
      -25_509,
      ...fc.sample(fc.integer({ min: first, max: last }), 3000),
    ]
    for (const day of days) {
      const date = new Date(day * 86_400_000)
      assert.deepEqual(civilDate(day), {
        year: date.getUTCFullYear(),
        month: date.getUTCMonth() + 1,
        day: date.getUTCDate(),
      })
      const civil = civilDate(day)
      assert.equal(daysFromCivil(civil.year, civil.month, civil.day), day)
    }
    // Month 13 is January of the next year.
    assert.equal(daysFromCivil(2026, 13, 1), daysFromCivil(2027, 1, 1))
  })
})
