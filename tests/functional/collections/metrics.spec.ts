import { test } from '@japa/runner'
import type { Assert } from '@japa/assert'
import type { ApiClient } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import { resetState, setNow } from '#tests/helpers/database'
import { setEnv } from '#tests/helpers/env'
import { createMerchantWithUser, signedInMember } from '#tests/helpers/portal'
import { getChart, getMetrics, insertTransactions } from '#tests/helpers/reporting'
import { route } from '#tests/helpers/routes'

const MARCH = {
  environment: 'live',
  currency: 'PHP',
  from: '2026-03-01T00:00:00+08:00',
  to: '2026-04-01T00:00:00+08:00',
}

test.group('GET /portal/collections/metrics: population and figures', (group) => {
  group.each.setup(() => resetState())

  test('counts by normalized status, sums PAID amounts exactly, includes archived and credited, [from, to)', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const other = await createMerchantWithUser()
    await insertTransactions(member.merchant.id, [
      { created_at: '2026-03-01T00:00:00+08:00', amount: '0.10' }, // exactly `from`: included
      { created_at: '2026-03-10T12:00:00+08:00', amount: '0.20', is_archived: true },
      { created_at: '2026-03-11T12:00:00+08:00', amount: '1234567890.99', is_credited: true },
      { created_at: '2026-03-12T12:00:00+08:00', status: 'paid', amount: '1.01' }, // case-insensitive
      { created_at: '2026-03-13T12:00:00+08:00', status: null, legacy_status: 'S', amount: '2.00' },
      { created_at: '2026-03-14T12:00:00+08:00', status: 'PENDING', amount: null }, // null still counts
      { created_at: '2026-03-15T12:00:00+08:00', status: 'weird', amount: '9.99' }, // → PENDING
      { created_at: '2026-03-16T12:00:00+08:00', status: null, legacy_status: 'R', amount: '5.00' },
      { created_at: '2026-03-17T12:00:00+08:00', status: 'REJECTED', amount: null },
      { created_at: '2026-03-31T23:59:59.999999+08:00', amount: '0.01' }, // last microsecond
      // Outside the population:
      { created_at: '2026-04-01T00:00:00+08:00', amount: '1000.00' }, // exactly `to`
      { created_at: '2026-02-28T23:59:59.999999+08:00', amount: '1000.00' },
      { created_at: '2026-03-10T12:00:00+08:00', amount: '1000.00', environment: 'test' },
      { created_at: '2026-03-10T12:00:00+08:00', amount: '1000.00', currency: 'USD' },
      { created_at: null, amount: '1000.00' },
    ])
    await insertTransactions(other.merchant.id, [{ created_at: '2026-03-10T12:00:00+08:00' }])

    const response = await getMetrics(client, member.bearer, MARCH)
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store')
    const body = response.body()
    assert.equal(body.message, 'Success')
    assert.deepInclude(body.data, {
      environment: 'live',
      currency: 'PHP',
      timezone: 'Asia/Manila',
      from: '2026-03-01T00:00:00.000000+08:00',
      to: '2026-04-01T00:00:00.000000+08:00',
      date_basis: 'created_at',
      // 0.10 + 0.20 + 1234567890.99 + 1.01 + 2.00 + 0.01
      collection_total: '1234567894.31',
      transaction_count: 10,
      successful_count: 6,
      pending_count: 2,
      rejected_count: 2,
      success_rate_percent: '60.00',
    })
    assert.deepEqual(Object.keys(body.data), [
      'environment',
      'currency',
      'timezone',
      'from',
      'to',
      'as_of',
      'date_basis',
      'collection_total',
      'transaction_count',
      'successful_count',
      'pending_count',
      'rejected_count',
      'success_rate_percent',
    ])
  })

  test('an empty population: total "0.00", counts 0, rate null', async ({ client, assert }) => {
    const member = await signedInMember()
    const response = await getMetrics(client, member.bearer, MARCH)
    response.assertStatus(200)
    assert.deepInclude(response.body().data, {
      collection_total: '0.00',
      transaction_count: 0,
      successful_count: 0,
      pending_count: 0,
      rejected_count: 0,
      success_rate_percent: null,
    })
  })

  test('transactions but none PAID: rate "0.00"; the rate rounds half up to two places', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [
      { created_at: '2026-03-02T00:00:00+08:00', status: 'PENDING' },
      { created_at: '2026-03-02T00:00:00+08:00', status: 'REJECTED' },
    ])
    const none = await getMetrics(client, member.bearer, MARCH)
    assert.equal(none.body().data.success_rate_percent, '0.00')
    assert.equal(none.body().data.collection_total, '0.00')

    // 2 PAID of 3 = 66.666…% → "66.67"
    await insertTransactions(member.merchant.id, [
      { created_at: '2026-03-03T00:00:00+08:00' },
      { created_at: '2026-03-03T00:00:00+08:00' },
      { created_at: '2026-03-03T00:00:00+08:00', status: 'PENDING' },
    ])
    const sliced = await getMetrics(client, member.bearer, {
      ...MARCH,
      from: '2026-03-03T00:00:00+08:00',
    })
    assert.equal(sliced.body().data.success_rate_percent, '66.67')
    assert.equal(sliced.body().data.collection_total, '200.00')
  })

  test('payment_brand narrows the population to that exact brand', async ({ client, assert }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [
      { created_at: '2026-03-02T00:00:00+08:00', payment_brand: 'gcash', amount: '1.00' },
      { created_at: '2026-03-02T00:00:00+08:00', payment_brand: 'maya', amount: '2.00' },
      { created_at: '2026-03-02T00:00:00+08:00', payment_brand: 'Maya', amount: '4.00' },
    ])
    const response = await getMetrics(client, member.bearer, { ...MARCH, payment_brand: 'maya' })
    response.assertStatus(200)
    assert.equal(response.body().data.collection_total, '2.00')
    assert.equal(response.body().data.transaction_count, 1)
  })

  test('echoes from/to in the reporting timezone with six fractional digits; as_of is the UTC observation time', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const now = new Date(Date.now() + 1000)
    setNow(now)
    const response = await getMetrics(client, member.bearer, {
      ...MARCH,
      from: '2026-02-28T16:00:00.5Z',
      to: '2026-03-01T03:04:05.123456-05:00',
      timezone: 'America/New_York',
    })
    response.assertStatus(200)
    assert.deepInclude(response.body().data, {
      timezone: 'America/New_York',
      from: '2026-02-28T11:00:00.500000-05:00',
      to: '2026-03-01T03:04:05.123456-05:00',
      as_of: now.toISOString(),
    })
  })

  test('the default timezone is REPORTING_DEFAULT_TIMEZONE, Asia/Manila when unset', async ({
    client,
    assert,
    cleanup,
  }) => {
    const member = await signedInMember()
    cleanup(setEnv('REPORTING_DEFAULT_TIMEZONE', undefined))
    const manila = await getMetrics(client, member.bearer, MARCH)
    assert.equal(manila.body().data.timezone, 'Asia/Manila')
    assert.equal(manila.body().data.from, '2026-03-01T00:00:00.000000+08:00')

    cleanup(setEnv('REPORTING_DEFAULT_TIMEZONE', 'Europe/London'))
    const london = await getMetrics(client, member.bearer, MARCH)
    assert.equal(london.body().data.timezone, 'Europe/London')
    assert.equal(london.body().data.from, '2026-02-28T16:00:00.000000+00:00')
  })

  test('developers may read metrics; without a token 401', async ({ client }) => {
    const developer = await signedInMember('developer')
    const response = await getMetrics(client, developer.bearer, MARCH)
    response.assertStatus(200)
    const anonymous = await client.get(route('collections.metrics')).qs(MARCH)
    anonymous.assertStatus(401)
  })

  test('a PAID transaction without an amount makes the summary and the chart 503', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [
      { created_at: '2026-03-05T00:00:00+08:00', amount: '10.00' },
      { created_at: '2026-03-20T00:00:00+08:00', amount: null },
    ])
    const summary = await getMetrics(client, member.bearer, MARCH)
    summary.assertStatus(503)
    assert.equal(summary.body().error_code, 'SERVICE_UNAVAILABLE')
    assert.notProperty(summary.body(), 'data')
    const chart = await getChart(client, member.bearer, { ...MARCH, interval: 'month' })
    chart.assertStatus(503)
    assert.equal(chart.body().error_code, 'SERVICE_UNAVAILABLE')
    // Outside the range, or in another brand, it does not matter.
    const before = await getMetrics(client, member.bearer, {
      ...MARCH,
      to: '2026-03-20T00:00:00+08:00',
    })
    before.assertStatus(200)
    assert.equal(before.body().data.collection_total, '10.00')
    const otherBrand = await getMetrics(client, member.bearer, { ...MARCH, payment_brand: 'maya' })
    otherBrand.assertStatus(200)
  })

  test('the same 503 when the paid row without amount is read from the rollup (a whole UTC month)', async ({
    client,
  }) => {
    const member = await signedInMember()
    await insertTransactions(member.merchant.id, [
      { created_at: '2026-03-15T12:00:00Z', amount: null },
    ])
    const response = await getMetrics(client, member.bearer, {
      environment: 'live',
      currency: 'PHP',
      from: '2026-01-01T00:00:00Z',
      to: '2026-06-01T00:00:00Z',
    })
    response.assertStatus(503)
  })
})

test.group('GET /portal/collections/metrics: query validation (strict)', (group) => {
  group.each.setup(() => resetState())

  async function expect422(
    client: ApiClient,
    assert: Assert,
    bearer: string,
    query: Record<string, unknown>,
    fields: string[]
  ) {
    const response = await getMetrics(client, bearer, query)
    response.assertStatus(422)
    assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    assert.sameMembers(Object.keys(response.body().errors), fields, JSON.stringify(query))
  }

  async function expectZoneAccepted(
    client: ApiClient,
    assert: Assert,
    bearer: string,
    zone: string
  ) {
    const response = await getMetrics(client, bearer, { ...MARCH, timezone: zone })
    response.assertStatus(200)
    assert.equal(response.body().data.timezone, zone)
  }

  test('environment, currency, from and to are required', async ({ client, assert }) => {
    const member = await signedInMember()
    await expect422(client, assert, member.bearer, {}, ['environment', 'currency', 'from', 'to'])
  })

  test('environment is test or live, case-sensitive; currency three uppercase letters of the catalogue', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    for (const [field, value] of [
      ['environment', 'LIVE'],
      ['currency', 'php'],
      ['currency', 'ZZZ'],
      ['currency', ''],
    ]) {
      await expect422(client, assert, member.bearer, { ...MARCH, [field]: value }, [field])
    }
  })

  test('an unreadable currency catalogue is 503 SERVICE_UNAVAILABLE for metrics and charts', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await db.rawQuery('ALTER TABLE currencies RENAME TO currencies_hidden')
    try {
      const summary = await getMetrics(client, member.bearer, MARCH)
      summary.assertStatus(503)
      assert.equal(summary.body().error_code, 'SERVICE_UNAVAILABLE')
      const chart = await getChart(client, member.bearer, { ...MARCH, interval: 'day' })
      chart.assertStatus(503)
    } finally {
      await db.rawQuery('ALTER TABLE currencies_hidden RENAME TO currencies')
    }
  })

  test('from and to follow the transactions timestamp grammar', async ({ client, assert }) => {
    const member = await signedInMember()
    for (const bad of [
      '2026-03-01',
      '2026-03-01T00:00:00',
      '2026-03-01T00:00:00+15:00',
      '2026-02-30T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '2026-03-01T00:00:00.1234567Z',
      '',
    ]) {
      await expect422(client, assert, member.bearer, { ...MARCH, from: bad }, ['from'])
    }
  })

  test('from must be before to (field to)', async ({ client, assert }) => {
    const member = await signedInMember()
    await expect422(client, assert, member.bearer, { ...MARCH, to: MARCH.from }, ['to'])
    // The same instant written with another offset.
    await expect422(client, assert, member.bearer, { ...MARCH, to: '2026-02-28T16:00:00Z' }, ['to'])
  })

  test('at most ten calendar years from `from` in the reporting timezone, to the microsecond (on to: metrics take no interval)', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const ok = await getMetrics(client, member.bearer, {
      ...MARCH,
      from: '2016-03-01T00:00:00.000001+08:00',
      to: '2026-03-01T00:00:00.000001+08:00',
    })
    ok.assertStatus(200)
    await expect422(
      client,
      assert,
      member.bearer,
      {
        ...MARCH,
        from: '2016-03-01T00:00:00.000001+08:00',
        to: '2026-03-01T00:00:00.000002+08:00',
      },
      ['to']
    )
    // Measured in the reporting timezone: São Paulo dropped daylight time in 2019, so
    // ten local years from a January 2016 midnight (-02:00) end at -03:00, an hour
    // later than ten UTC years.
    const range = { from: '2016-01-15T00:00:00-02:00', to: '2026-01-14T23:30:00-03:00' }
    const saoPaulo = await getMetrics(client, member.bearer, {
      ...MARCH,
      ...range,
      timezone: 'America/Sao_Paulo',
    })
    saoPaulo.assertStatus(200)
    await expect422(client, assert, member.bearer, { ...MARCH, ...range, timezone: 'UTC' }, ['to'])
  })

  test('a leap-day `from` ends ten years later on 28 February (anniversary clipped)', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const ok = await getMetrics(client, member.bearer, {
      ...MARCH,
      from: '2024-02-29T10:00:00+08:00',
      to: '2034-02-28T10:00:00+08:00',
    })
    ok.assertStatus(200)
    await expect422(
      client,
      assert,
      member.bearer,
      { ...MARCH, from: '2024-02-29T10:00:00+08:00', to: '2034-02-28T10:00:00.000001+08:00' },
      ['to']
    )
  })

  test('timezone: IANA names only (UTC and Etc/GMT+8 are IANA names); numeric offsets and garbage are 422', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    for (const zone of ['UTC', 'Etc/GMT+8', 'Australia/Lord_Howe', 'Pacific/Apia']) {
      await expectZoneAccepted(client, assert, member.bearer, zone)
    }
    const etc = await getMetrics(client, member.bearer, { ...MARCH, timezone: 'Etc/GMT+8' })
    assert.equal(etc.body().data.from, '2026-02-28T08:00:00.000000-08:00')
    for (const zone of ['+08:00', '-0800', 'UTC+8', 'GMT+8', 'Mars/Olympus', 'garbage', '', '8']) {
      await expect422(client, assert, member.bearer, { ...MARCH, timezone: zone }, ['timezone'])
    }
  })

  test('timezone: names outside the IANA database (BST, AST, SystemV/EST5, US/Pacific-New) are 422; its backward links are accepted', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    // ICU alone gives each a meaning (BST is Asia/Dhaka there, AST Alaska): not IANA.
    for (const zone of [
      'BST',
      'AST',
      'SST',
      'IST',
      'PST',
      'SystemV/EST5',
      'US/Pacific-New',
      'Canada/East-Saskatchewan',
      'Factory', // IANA, but no offsets in ICU
    ]) {
      await expect422(client, assert, member.bearer, { ...MARCH, timezone: zone }, ['timezone'])
    }
    for (const zone of ['US/Eastern', 'Asia/Calcutta', 'EST', 'CST6CDT', 'GMT', 'us/pacific']) {
      await expectZoneAccepted(client, assert, member.bearer, zone)
    }
  })

  test('payment_brand: nonempty, at most 100 characters', async ({ client, assert }) => {
    const member = await signedInMember()
    for (const brand of ['', 'b'.repeat(101)]) {
      await expect422(client, assert, member.bearer, { ...MARCH, payment_brand: brand }, [
        'payment_brand',
      ])
    }
    const ok = await getMetrics(client, member.bearer, { ...MARCH, payment_brand: 'b'.repeat(100) })
    ok.assertStatus(200)
  })

  test('interval, pagination, status, search, merchant references, as_of and unlisted fields are rejected by name', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    for (const field of [
      'interval',
      'page',
      'per_page',
      'status',
      'query',
      'merchant_transaction_id',
      'as_of',
      'date_basis',
      'anything',
    ]) {
      await expect422(client, assert, member.bearer, { ...MARCH, [field]: 'x' }, [field])
    }
    // A merchant selector naming another merchant is 403 before validation (Common
    // response rules); naming one's own is still an unlisted field.
    await expect422(
      client,
      assert,
      member.bearer,
      { ...MARCH, merchant_id: String(member.merchant.id) },
      ['merchant_id']
    )
  })

  test('repeated or bracketed parameters are 422, never 500', async ({ client, assert }) => {
    const member = await signedInMember()
    const repeated = await client
      .get(
        `${route('collections.metrics')}?environment=live&currency=PHP&from=${encodeURIComponent(MARCH.from)}&from=${encodeURIComponent(MARCH.from)}&to=${encodeURIComponent(MARCH.to)}`
      )
      .header('Authorization', member.bearer)
    repeated.assertStatus(422)
    assert.property(repeated.body().errors, 'from')
    const nested = await client
      .get(
        `${route('collections.metrics')}?environment=live&currency=PHP&from=${encodeURIComponent(MARCH.from)}&to=${encodeURIComponent(MARCH.to)}&timezone[a]=b`
      )
      .header('Authorization', member.bearer)
    nested.assertStatus(422)
    assert.property(nested.body().errors, 'timezone')
  })

  test('extreme years of the grammar: 200 when the reporting timezone reads years 1-9999, else 422, never 500', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    for (const [from, to, timezone] of [
      ['0001-01-01T00:00:00+14:00', '0001-02-01T00:00:00+14:00', 'Etc/GMT-14'],
      ['9999-06-01T00:00:00-12:00', '9999-12-31T23:59:59.999999-12:00', 'Etc/GMT+12'],
    ]) {
      const summary = await getMetrics(client, member.bearer, { ...MARCH, from, to, timezone })
      summary.assertStatus(200)
      const chart = await getChart(client, member.bearer, {
        ...MARCH,
        from,
        to,
        timezone,
        interval: 'month',
      })
      chart.assertStatus(200)
    }
    // 0001-01-01T00:00+14:00 is 0000-12-31 in UTC; 9999-12-31T23:59-12:00 is year 10000 at +14:00.
    await expect422(
      client,
      assert,
      member.bearer,
      { ...MARCH, from: '0001-01-01T00:00:00+14:00', to: '0001-02-01T00:00:00Z', timezone: 'UTC' },
      ['from']
    )
    await expect422(
      client,
      assert,
      member.bearer,
      {
        ...MARCH,
        from: '9999-12-01T00:00:00Z',
        to: '9999-12-31T23:59:59-12:00',
        timezone: 'Pacific/Kiritimati',
      },
      ['to']
    )
  })
})
