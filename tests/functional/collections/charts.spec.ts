import { test } from '@japa/runner'
import { resetState } from '#tests/helpers/database'
import { getChart, insertTransactions } from '#tests/helpers/reporting'
import { signedInMember } from '#tests/helpers/portal'

const BASE = { environment: 'live', currency: 'PHP' }

/** The `fields` of each bucket, in order. */
const columns = (buckets: any[], ...fields: string[]) =>
  buckets.map((bucket) => fields.map((field) => bucket[field]))

/** The parts of each bucket a test cares about. */
const brief = (buckets: any[]) =>
  columns(buckets, 'period', 'from', 'to', 'partial', 'transaction_count', 'collection_total')

test.group('GET /portal/collections/charts: buckets and totals', (group) => {
  group.each.setup(() => resetState())

  test('daily buckets in Asia/Manila: empty days have zeros and a null rate, totals sum the buckets, the overall rate comes from overall counts', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [
      { created_at: '2026-03-01T00:00:00+08:00', amount: '10.00' },
      { created_at: '2026-02-28T23:59:59Z', amount: '0.01' }, // 03-01 07:59:59 local
      { created_at: '2026-03-03T23:59:59.999999+08:00', status: 'REJECTED' },
      { created_at: '2026-03-03T12:00:00+08:00', status: 'PENDING', amount: null },
      { created_at: '2026-03-03T13:00:00+08:00', status: 'REJECTED' },
    ])
    const response = await getChart(client, member.bearer, {
      ...BASE,
      from: '2026-03-01T00:00:00+08:00',
      to: '2026-03-04T00:00:00+08:00',
      interval: 'day',
    })
    response.assertStatus(200)
    const data = response.body().data
    assert.deepEqual(Object.keys(data), [
      'environment',
      'currency',
      'timezone',
      'interval',
      'date_basis',
      'from',
      'to',
      'as_of',
      'totals',
      'buckets',
    ])
    assert.deepEqual(data.buckets, [
      {
        period: '2026-03-01',
        from: '2026-03-01T00:00:00.000000+08:00',
        to: '2026-03-02T00:00:00.000000+08:00',
        partial: false,
        collection_total: '10.01',
        transaction_count: 2,
        successful_count: 2,
        pending_count: 0,
        rejected_count: 0,
        success_rate_percent: '100.00',
      },
      {
        period: '2026-03-02',
        from: '2026-03-02T00:00:00.000000+08:00',
        to: '2026-03-03T00:00:00.000000+08:00',
        partial: false,
        collection_total: '0.00',
        transaction_count: 0,
        successful_count: 0,
        pending_count: 0,
        rejected_count: 0,
        success_rate_percent: null,
      },
      {
        period: '2026-03-03',
        from: '2026-03-03T00:00:00.000000+08:00',
        to: '2026-03-04T00:00:00.000000+08:00',
        partial: false,
        collection_total: '0.00',
        transaction_count: 3,
        successful_count: 0,
        pending_count: 1,
        rejected_count: 2,
        success_rate_percent: '0.00',
      },
    ])
    // 2 of 5, not the average of 100 %, null and 0 %.
    assert.deepEqual(data.totals, {
      collection_total: '10.01',
      transaction_count: 5,
      successful_count: 2,
      pending_count: 1,
      rejected_count: 2,
      success_rate_percent: '40.00',
    })
    assert.equal(data.interval, 'day')
    assert.equal(data.date_basis, 'created_at')
  })

  test('clipped first and last buckets are partial; a `to` on a boundary adds no bucket', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [
      { created_at: '2026-01-15T10:00:00.123455+08:00' }, // a microsecond before `from`
      { created_at: '2026-01-15T10:00:00.123456+08:00' }, // exactly `from`
      { created_at: '2026-03-01T13:59:59.999999+08:00' },
      { created_at: '2026-03-01T14:00:00+08:00' }, // exactly `to`
    ])
    const clipped = await getChart(client, member.bearer, {
      ...BASE,
      from: '2026-01-15T10:00:00.123456+08:00',
      to: '2026-03-01T06:00:00Z',
      interval: 'month',
    })
    clipped.assertStatus(200)
    assert.deepEqual(brief(clipped.body().data.buckets), [
      [
        '2026-01',
        '2026-01-15T10:00:00.123456+08:00',
        '2026-02-01T00:00:00.000000+08:00',
        true,
        1,
        '100.00',
      ],
      [
        '2026-02',
        '2026-02-01T00:00:00.000000+08:00',
        '2026-03-01T00:00:00.000000+08:00',
        false,
        0,
        '0.00',
      ],
      [
        '2026-03',
        '2026-03-01T00:00:00.000000+08:00',
        '2026-03-01T14:00:00.000000+08:00',
        true,
        1,
        '100.00',
      ],
    ])
    const onBoundary = await getChart(client, member.bearer, {
      ...BASE,
      from: '2026-01-01T00:00:00+08:00',
      to: '2026-03-01T00:00:00+08:00',
      interval: 'month',
    })
    assert.deepEqual(columns(onBoundary.body().data.buckets, 'period', 'partial'), [
      ['2026-01', false],
      ['2026-02', false],
    ])
  })

  test('America/New_York: the spring-forward day is 23 hours, the fall-back day 25, both through HTTP', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [
      { created_at: '2026-03-08T01:59:59.999999-05:00', amount: '1.00' }, // just before the gap
      { created_at: '2026-03-08T03:00:00-04:00', amount: '2.00' }, // just after it
      { created_at: '2026-03-08T23:59:59-04:00', amount: '4.00' },
      { created_at: '2026-03-09T00:00:00-04:00', amount: '8.00' },
      { created_at: '2026-11-01T01:30:00-04:00', amount: '16.00' }, // first 01:30
      { created_at: '2026-11-01T01:30:00-05:00', amount: '32.00' }, // second 01:30
      { created_at: '2026-11-01T23:59:59-05:00', amount: '64.00' },
    ])
    const spring = await getChart(client, member.bearer, {
      ...BASE,
      from: '2026-03-08T00:00:00-05:00',
      to: '2026-03-10T00:00:00-04:00',
      interval: 'day',
      timezone: 'America/New_York',
    })
    spring.assertStatus(200)
    assert.deepEqual(brief(spring.body().data.buckets), [
      [
        '2026-03-08',
        '2026-03-08T00:00:00.000000-05:00',
        '2026-03-09T00:00:00.000000-04:00',
        false,
        3,
        '7.00',
      ],
      [
        '2026-03-09',
        '2026-03-09T00:00:00.000000-04:00',
        '2026-03-10T00:00:00.000000-04:00',
        false,
        1,
        '8.00',
      ],
    ])
    const autumn = await getChart(client, member.bearer, {
      ...BASE,
      from: '2026-11-01T00:00:00-04:00',
      to: '2026-11-02T00:00:00-05:00',
      interval: 'day',
      timezone: 'America/New_York',
    })
    assert.deepEqual(brief(autumn.body().data.buckets), [
      [
        '2026-11-01',
        '2026-11-01T00:00:00.000000-04:00',
        '2026-11-02T00:00:00.000000-05:00',
        false,
        3,
        '112.00',
      ],
    ])
  })

  test('Australia/Lord_Howe and Pacific/Apia through HTTP: a 23.5-hour day, and no bucket for the day Apia skipped', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [
      { created_at: '2011-12-29T23:59:59-10:00', amount: '1.00' },
      { created_at: '2011-12-31T00:00:00+14:00', amount: '2.00' }, // one second later
    ])
    const apia = await getChart(client, member.bearer, {
      ...BASE,
      from: '2011-12-29T00:00:00-10:00',
      to: '2012-01-01T00:00:00+14:00',
      interval: 'day',
      timezone: 'Pacific/Apia',
    })
    apia.assertStatus(200)
    assert.deepEqual(brief(apia.body().data.buckets), [
      [
        '2011-12-29',
        '2011-12-29T00:00:00.000000-10:00',
        '2011-12-31T00:00:00.000000+14:00',
        false,
        1,
        '1.00',
      ],
      [
        '2011-12-31',
        '2011-12-31T00:00:00.000000+14:00',
        '2012-01-01T00:00:00.000000+14:00',
        false,
        1,
        '2.00',
      ],
    ])
    const lordHowe = await getChart(client, member.bearer, {
      ...BASE,
      from: '2026-10-04T00:00:00+10:30',
      to: '2026-10-05T00:00:00+11:00',
      interval: 'day',
      timezone: 'Australia/Lord_Howe',
    })
    assert.deepEqual(columns(lordHowe.body().data.buckets, 'from', 'to'), [
      ['2026-10-04T00:00:00.000000+10:30', '2026-10-05T00:00:00.000000+11:00'],
    ])
  })

  test('leap day: 29 February 2024 is its own daily bucket and belongs to February', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [
      { created_at: '2024-02-29T00:00:00+08:00', amount: '1.00' },
      { created_at: '2024-02-29T23:59:59.999999+08:00', amount: '2.00' },
      { created_at: '2024-03-01T00:00:00+08:00', amount: '4.00' },
    ])
    const views: Array<[string, string, string, string[][]]> = [
      [
        'day',
        '2024-02-28T00:00:00+08:00',
        '2024-03-02T00:00:00+08:00',
        [
          ['2024-02-28', '0.00'],
          ['2024-02-29', '3.00'],
          ['2024-03-01', '4.00'],
        ],
      ],
      [
        'month',
        '2024-02-01T00:00:00+08:00',
        '2024-04-01T00:00:00+08:00',
        [
          ['2024-02', '3.00'],
          ['2024-03', '4.00'],
        ],
      ],
    ]
    for (const [interval, from, to, expected] of views) {
      const chart = await getChart(client, member.bearer, { ...BASE, from, to, interval })
      assert.deepEqual(columns(chart.body().data.buckets, 'period', 'collection_total'), expected)
    }
  })

  test('changing the timezone keeps the instants and moves labels and bucket counts', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [{ created_at: '2026-03-01T03:00:00+08:00' }])
    const query = {
      ...BASE,
      from: '2026-03-01T00:00:00+08:00',
      to: '2026-03-02T00:00:00+08:00',
      interval: 'day',
    }
    const manila = await getChart(client, member.bearer, query)
    const utc = await getChart(client, member.bearer, { ...query, timezone: 'UTC' })
    assert.deepEqual(columns(manila.body().data.buckets, 'period', 'transaction_count'), [
      ['2026-03-01', 1],
    ])
    assert.deepEqual(columns(utc.body().data.buckets, 'period', 'partial', 'transaction_count'), [
      ['2026-02-28', true, 1],
      ['2026-03-01', true, 0],
    ])
    assert.equal(utc.body().data.from, '2026-02-28T16:00:00.000000+00:00')
  })
})

test.group('GET /portal/collections/charts: limits and validation', (group) => {
  group.each.setup(() => resetState())

  const cases: Array<[string, string, string, number]> = [
    ['day', '2024-01-01T00:00:00+08:00', '2025-01-01T00:00:00+08:00', 200], // 366 days
    ['day', '2024-01-01T00:00:00+08:00', '2025-01-01T00:00:00.000001+08:00', 422], // 367th, partial
    ['day', '2025-01-01T12:00:00+08:00', '2026-01-02T00:00:00+08:00', 200], // 366 with a partial first
    ['day', '2025-01-01T12:00:00+08:00', '2026-01-02T00:00:00.000001+08:00', 422],
    ['month', '2016-01-01T00:00:00+08:00', '2026-01-01T00:00:00+08:00', 200], // 120
    ['month', '2016-01-15T00:00:00+08:00', '2026-01-15T00:00:00+08:00', 422], // 121 (two partial)
    ['year', '2016-01-01T00:00:00+08:00', '2026-01-01T00:00:00+08:00', 200], // 10
    ['year', '2016-01-02T00:00:00+08:00', '2026-01-02T00:00:00+08:00', 422], // 11
  ]
  for (const [interval, from, to, status] of cases) {
    test(`${interval} ${from} → ${to}: ${status}`, async ({ client, assert }) => {
      const member = await signedInMember()
      const response = await getChart(client, member.bearer, { ...BASE, from, to, interval })
      response.assertStatus(status)
      if (status === 422) {
        assert.equal(response.body().error_code, 'VALIDATION_ERROR')
        assert.deepEqual(Object.keys(response.body().errors), ['interval'])
      } else {
        const limit = { day: 366, month: 120, year: 10 }[interval]!
        assert.lengthOf(response.body().data.buckets, limit)
      }
    })
  }

  test('timezone: names outside the IANA database (BST, AST, SystemV/EST5, US/Pacific-New) are 422', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const query = { ...BASE, from: '2026-03-01T00:00:00+08:00', to: '2026-03-02T00:00:00+08:00' }
    for (const timezone of ['BST', 'AST', 'SystemV/EST5', 'US/Pacific-New']) {
      const response = await getChart(client, member.bearer, {
        ...query,
        interval: 'day',
        timezone,
      })
      response.assertStatus(422)
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
      assert.deepEqual(Object.keys(response.body().errors), ['timezone'], timezone)
    }
    const eastern = await getChart(client, member.bearer, {
      ...query,
      interval: 'day',
      timezone: 'US/Eastern',
    })
    eastern.assertStatus(200)
    assert.equal(eastern.body().data.timezone, 'US/Eastern')
  })

  test('a range over ten calendar years is a field error on interval (and on to)', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const response = await getChart(client, member.bearer, {
      ...BASE,
      from: '2016-01-01T00:00:00+08:00',
      to: '2026-01-01T00:00:00.000001+08:00',
      interval: 'year',
    })
    response.assertStatus(422)
    assert.sameMembers(Object.keys(response.body().errors), ['interval', 'to'])
    assert.deepEqual(response.body().errors.interval, [
      'The range must not exceed 10 calendar years.',
    ])
  })

  test('interval is required and one of day, month, year; the rest as on metrics', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const query = { ...BASE, from: '2026-03-01T00:00:00+08:00', to: '2026-03-02T00:00:00+08:00' }
    for (const interval of [undefined, '', 'week', 'DAY', 'hour']) {
      const response = await getChart(client, member.bearer, { ...query, interval })
      response.assertStatus(422)
      assert.deepEqual(Object.keys(response.body().errors), ['interval'])
    }
    const extra = await getChart(client, member.bearer, { ...query, interval: 'day', page: '1' })
    extra.assertStatus(422)
    assert.deepEqual(Object.keys(extra.body().errors), ['page'])
    const zone = await getChart(client, member.bearer, {
      ...query,
      interval: 'day',
      timezone: '+08:00',
    })
    zone.assertStatus(422)
    assert.deepEqual(Object.keys(zone.body().errors), ['timezone'])
  })
})
