import { test } from '@japa/runner'
import type { ApiClient, ApiResponse } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { signedInMember, teammate, type Session } from '#tests/helpers/portal'
import { liftLimit, setLimit } from '#tests/helpers/limits'
import { importTransactions, merchantRequest, type ImportLine } from '#tests/helpers/collections'
import { route } from '#tests/helpers/routes'

const list = (client: ApiClient, session: Session, qs: Record<string, unknown> = {}) =>
  client
    .get(route('collections.transactions.index'))
    .header('Authorization', session.bearer)
    .qs({ environment: 'live', ...qs })

const references = (response: ApiResponse) =>
  response
    .body()
    .data.map((item: { merchant_transaction_id: string }) => item.merchant_transaction_id)

function line(session: Session, reference: string, extra: Partial<ImportLine> = {}): ImportLine {
  return {
    merchant_id: session.merchant.id,
    environment: 'live',
    merchant_transaction_id: reference,
    ...extra,
  }
}

test.group('GET /portal/collections/transactions', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => liftLimit('api'))

  test('both roles read the exact Transaction shape, message Success, no-store', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const developer = await teammate(admin, 'developer')
    const [stored] = await importTransactions([
      line(admin, 'ORD-1001', {
        amount: '1500.00',
        currency: 'PHP',
        payment_status: 'paid',
        payment_brand: 'gcash',
        created_at: '2026-03-01T10:00:00.123456+08:00',
        updated_at: '2026-03-01T10:05:00+08:00',
        events: [merchantRequest('ORD-1001', '2026-03-01T10:00:00.120+08:00')],
      }),
    ])
    for (const member of [admin, developer]) {
      const response = await list(client, member)
      response.assertStatus(200)
      response.assertHeader('cache-control', 'no-store')
      assert.equal(response.body().success, true)
      assert.equal(response.body().message, 'Success')
      assert.deepEqual(response.body().data, [
        {
          id: stored.id,
          merchant_transaction_id: 'ORD-1001',
          environment: 'live',
          amount: '1500.00',
          currency: 'PHP',
          status: 'PAID',
          payment_brand: 'gcash',
          payment_method: null,
          created_at: '2026-03-01T02:00:00.123456Z',
          updated_at: '2026-03-01T02:05:00.000000Z',
          history_available: true,
        },
      ])
      assert.deepEqual(response.body().meta, {
        current_page: 1,
        per_page: 25,
        total: 1,
        last_page: 1,
      })
    }
  })

  test('amount keeps two decimals or is null; timestamps may be null', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'A', { amount: '0.10', created_at: '2026-03-02T00:00:00Z' }),
      line(admin, 'B', { amount: null, payment_status: 'PENDING', created_at: null }),
    ])
    const response = await list(client, admin)
    const byRef = Object.fromEntries(
      response
        .body()
        .data.map((item: { merchant_transaction_id: string }) => [
          item.merchant_transaction_id,
          item,
        ])
    )
    assert.equal(byRef.A.amount, '0.10')
    assert.isNull(byRef.B.amount)
    assert.isNull(byRef.B.created_at)
    assert.isNull(byRef.B.updated_at)
  })

  test('status is normalized: recognized payment_status wins, else legacy S/R, else PENDING', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'P1', {
        payment_status: 'Rejected',
        legacy_status: 'S',
        created_at: '2026-03-05T00:00:00Z',
      }),
      line(admin, 'P2', {
        payment_status: null,
        legacy_status: 'S',
        created_at: '2026-03-04T00:00:00Z',
      }),
      line(admin, 'P3', {
        payment_status: 'settled',
        legacy_status: 'R',
        created_at: '2026-03-03T00:00:00Z',
      }),
      line(admin, 'P4', {
        payment_status: null,
        legacy_status: 'X',
        created_at: '2026-03-02T00:00:00Z',
      }),
    ])
    const response = await list(client, admin)
    assert.deepEqual(
      response.body().data.map((item: { status: string }) => item.status),
      ['REJECTED', 'PAID', 'REJECTED', 'PENDING']
    )
    const paid = await list(client, admin, { status: 'PAID' })
    assert.deepEqual(references(paid), ['P2'])
    const rejected = await list(client, admin, { status: 'REJECTED' })
    assert.deepEqual(references(rejected), ['P1', 'P3'])
    const pending = await list(client, admin, { status: 'PENDING' })
    assert.deepEqual(references(pending), ['P4'])
  })

  test('only the merchant and environment requested are listed, archived included', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const other = await signedInMember()
    await importTransactions([
      line(admin, 'LIVE-1', { archived: true }),
      line(admin, 'TEST-1', { environment: 'test' }),
      line(other, 'FOREIGN-1'),
    ])
    assert.deepEqual(references(await list(client, admin)), ['LIVE-1'])
    assert.deepEqual(references(await list(client, admin, { environment: 'test' })), ['TEST-1'])
  })

  test('sorted by created_at descending then id descending, null creation times last', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'OLD', { created_at: '2026-01-01T00:00:00Z' }),
      line(admin, 'NULL', { created_at: null }),
      line(admin, 'SAME-1', { created_at: '2026-02-01T00:00:00Z' }),
      line(admin, 'SAME-2', { created_at: '2026-02-01T00:00:00Z' }),
      line(admin, 'NEW', { created_at: '2026-03-01T00:00:00Z' }),
    ])
    assert.deepEqual(references(await list(client, admin)), [
      'NEW',
      'SAME-2',
      'SAME-1',
      'OLD',
      'NULL',
    ])
  })

  test('standard pagination: meta, empty pages past the end, invalid values 422', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await importTransactions(
      Array.from({ length: 5 }, (_, index) =>
        line(admin, `R${index}`, { created_at: `2026-03-0${index + 1}T00:00:00Z` })
      )
    )
    const second = await list(client, admin, { page: 2, per_page: 2 })
    assert.deepEqual(references(second), ['R2', 'R1'])
    assert.deepEqual(second.body().meta, { current_page: 2, per_page: 2, total: 5, last_page: 3 })
    const beyond = await list(client, admin, { page: 9, per_page: 2 })
    beyond.assertStatus(200)
    assert.deepEqual(beyond.body().data, [])
    assert.deepEqual(beyond.body().meta, { current_page: 9, per_page: 2, total: 5, last_page: 3 })
    // However far past the end, up to the largest integer a JSON client reads exactly.
    for (const page of [1_000_000_000, Number.MAX_SAFE_INTEGER]) {
      const far = await list(client, admin, { page: String(page), per_page: 100 })
      far.assertStatus(200)
      assert.deepEqual(far.body().data, [])
      assert.deepEqual(far.body().meta, {
        current_page: page,
        per_page: 100,
        total: 5,
        last_page: 1,
      })
    }
    for (const qs of [
      { page: 0 },
      { page: '' },
      { per_page: 101 },
      { per_page: 0 },
      { page: 'x' },
      { page: '9007199254740992' },
    ]) {
      const response = await list(client, admin, qs)
      response.assertStatus(422)
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    }
  })

  test('environment is required and case-sensitive', async ({ client, assert }) => {
    const admin = await signedInMember()
    for (const qs of [{}, { environment: 'LIVE' }, { environment: '' }, { environment: 'prod' }]) {
      const response = await client
        .get(route('collections.transactions.index'))
        .header('Authorization', admin.bearer)
        .qs(qs)
      response.assertStatus(422)
      assert.property(response.body().errors, 'environment')
    }
  })

  test('from and to: both or neither, the exact grammar, from before to', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const cases: Array<[Record<string, string>, string]> = [
      [{ from: '2026-03-01T00:00:00Z' }, 'to'],
      [{ to: '2026-03-01T00:00:00Z' }, 'from'],
      [{ from: '2026-03-01T00:00:00', to: '2026-03-02T00:00:00Z' }, 'from'],
      [{ from: '2026-02-30T00:00:00Z', to: '2026-03-02T00:00:00Z' }, 'from'],
      [{ from: '0000-01-01T00:00:00Z', to: '2026-03-02T00:00:00Z' }, 'from'],
      [{ from: '2026-03-01T00:00:00+14:01', to: '2026-03-02T00:00:00Z' }, 'from'],
      [{ from: '2026-03-01T00:00:00.1234567Z', to: '2026-03-02T00:00:00Z' }, 'from'],
      [{ from: '2026-03-01 00:00:00Z', to: '2026-03-02T00:00:00Z' }, 'from'],
      [{ from: '2026-03-02T00:00:00Z', to: '2026-03-02T00:00:00Z' }, 'to'],
      [{ from: '2026-03-02T08:00:00+08:00', to: '2026-03-02T00:00:00Z' }, 'to'],
      [{ from: '2026-03-03T00:00:00Z', to: '2026-03-02T00:00:00Z' }, 'to'],
    ]
    for (const [qs, field] of cases) {
      const response = await list(client, admin, qs)
      response.assertStatus(422)
      assert.property(response.body().errors, field, JSON.stringify(qs))
    }
    const ok = await list(client, admin, {
      from: '2026-03-01T00:00:00-14:00',
      to: '2026-03-01T00:00:00.000001-14:00',
    })
    ok.assertStatus(200)
  })

  test('the date range is half-open [from, to), exact to the microsecond, across offsets', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'BEFORE', { created_at: '2026-02-28T15:59:59.999999Z' }),
      line(admin, 'AT-FROM', { created_at: '2026-02-28T16:00:00Z' }),
      line(admin, 'INSIDE', { created_at: '2026-03-01T12:00:00+08:00' }),
      line(admin, 'LAST', { created_at: '2026-03-31T15:59:59.999999Z' }),
      line(admin, 'AT-TO', { created_at: '2026-03-31T16:00:00Z' }),
    ])
    const march = await list(client, admin, {
      from: '2026-03-01T00:00:00+08:00',
      to: '2026-04-01T00:00:00.000000+08:00',
    })
    assert.deepEqual(references(march), ['LAST', 'INSIDE', 'AT-FROM'])
    assert.equal(march.body().meta.total, 3)
    const sameInUtc = await list(client, admin, {
      from: '2026-02-28T16:00:00Z',
      to: '2026-03-31T16:00:00Z',
    })
    assert.deepEqual(references(sameInUtc), ['LAST', 'INSIDE', 'AT-FROM'])
  })

  test('merchant_transaction_id is an exact, case-sensitive match', async ({ client, assert }) => {
    const admin = await signedInMember()
    await importTransactions([line(admin, 'ORD-1'), line(admin, 'ORD-10'), line(admin, 'ord-1')])
    assert.deepEqual(references(await list(client, admin, { merchant_transaction_id: 'ORD-1' })), [
      'ORD-1',
    ])
    assert.deepEqual(references(await list(client, admin, { merchant_transaction_id: 'ORD' })), [])
  })

  test('query is a substring search taking %, _ and ! literally', async ({ client, assert }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'A-100%-X', { created_at: '2026-03-06T00:00:00Z' }),
      line(admin, 'A-1000-X', { created_at: '2026-03-05T00:00:00Z' }),
      line(admin, 'B_2', { created_at: '2026-03-04T00:00:00Z' }),
      line(admin, 'BX2', { created_at: '2026-03-03T00:00:00Z' }),
      line(admin, 'C!3', { created_at: '2026-03-02T00:00:00Z' }),
      line(admin, 'C3', { created_at: '2026-03-01T00:00:00Z' }),
    ])
    assert.deepEqual(references(await list(client, admin, { query: '100' })), [
      'A-100%-X',
      'A-1000-X',
    ])
    assert.deepEqual(references(await list(client, admin, { query: '0%' })), ['A-100%-X'])
    assert.deepEqual(references(await list(client, admin, { query: '%' })), ['A-100%-X'])
    assert.deepEqual(references(await list(client, admin, { query: 'B_' })), ['B_2'])
    assert.deepEqual(references(await list(client, admin, { query: '_' })), ['B_2'])
    assert.deepEqual(references(await list(client, admin, { query: 'C!' })), ['C!3'])
    assert.deepEqual(references(await list(client, admin, { query: '!' })), ['C!3'])
    assert.deepEqual(references(await list(client, admin, { query: 'c3' })), [])
  })

  test('currency filters by the catalogue: unsupported or malformed is 422', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'PHP-1', { currency: 'PHP' }),
      line(admin, 'USD-1', { currency: 'USD' }),
    ])
    assert.deepEqual(references(await list(client, admin, { currency: 'USD' })), ['USD-1'])
    for (const currency of ['usd', 'US', 'ABC', '']) {
      const response = await list(client, admin, { currency })
      response.assertStatus(422)
      assert.property(response.body().errors, 'currency')
    }
  })

  test('an unreadable currency catalogue is 503 only for currency-filtered reads', async ({
    client,
    assert,
    cleanup,
  }) => {
    const admin = await signedInMember()
    await importTransactions([line(admin, 'PHP-1')])
    await db.rawQuery('ALTER TABLE currencies RENAME TO currencies_hidden_by_test')
    cleanup(async () => {
      await db.rawQuery('ALTER TABLE currencies_hidden_by_test RENAME TO currencies')
    })
    const filtered = await list(client, admin, { currency: 'PHP' })
    filtered.assertStatus(503)
    assert.equal(filtered.body().error_code, 'SERVICE_UNAVAILABLE')
    assert.notProperty(filtered.body(), 'data')
    const unfiltered = await list(client, admin)
    unfiltered.assertStatus(200)
    assert.deepEqual(references(unfiltered), ['PHP-1'])
  })

  test('payment_brand is an exact match', async ({ client, assert }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'G', { payment_brand: 'gcash' }),
      line(admin, 'GX', { payment_brand: 'gcash_x' }),
      line(admin, 'M', { payment_brand: 'maya' }),
    ])
    assert.deepEqual(references(await list(client, admin, { payment_brand: 'gcash' })), ['G'])
  })

  test('filters combine with AND', async ({ client, assert }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'ORD-1', {
        payment_brand: 'gcash',
        payment_status: 'PAID',
        created_at: '2026-03-02T00:00:00Z',
      }),
      line(admin, 'ORD-2', {
        payment_brand: 'maya',
        payment_status: 'PAID',
        created_at: '2026-03-03T00:00:00Z',
      }),
      line(admin, 'ORD-3', {
        payment_brand: 'gcash',
        payment_status: 'PENDING',
        created_at: '2026-03-04T00:00:00Z',
      }),
      line(admin, 'XRD-4', {
        payment_brand: 'gcash',
        payment_status: 'PAID',
        created_at: '2026-03-05T00:00:00Z',
      }),
      line(admin, 'ORD-5', {
        payment_brand: 'gcash',
        payment_status: 'PAID',
        created_at: '2026-04-05T00:00:00Z',
      }),
    ])
    const response = await list(client, admin, {
      query: 'ORD',
      payment_brand: 'gcash',
      status: 'PAID',
      currency: 'PHP',
      from: '2026-03-01T00:00:00Z',
      to: '2026-04-01T00:00:00Z',
    })
    assert.deepEqual(references(response), ['ORD-1'])
    assert.equal(response.body().meta.total, 1)
  })

  test('meta.total stays exact through imports, re-imports, status changes and deletions', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const other = await signedInMember()
    const filters: Array<Record<string, string>> = [
      {},
      { status: 'PAID' },
      { status: 'PENDING' },
      { environment: 'test' },
      { currency: 'USD' },
      { payment_brand: 'maya' },
      { status: 'PAID', payment_brand: 'gcash', currency: 'PHP' },
    ]
    const totals = async () => {
      const result: number[] = []
      for (const qs of filters) {
        const response = await list(client, admin, qs)
        result.push(response.body().meta.total)
      }
      return result
    }
    const counted = async () => {
      const result: number[] = []
      for (const { environment = 'live', ...rest } of filters) {
        const row = await db
          .from('transactions')
          .where({ merchant_id: admin.merchant.id, environment, ...rest })
          .count('* as total')
          .first()
        result.push(Number(row.total))
      }
      return result
    }
    await importTransactions([
      line(admin, 'A', { payment_status: 'PAID' }),
      line(admin, 'B', { payment_status: 'PAID', payment_brand: 'maya' }),
      line(admin, 'C', { payment_status: 'PENDING', currency: 'USD' }),
      line(admin, 'T', { environment: 'test' }),
      line(other, 'X'),
    ])
    assert.deepEqual(await totals(), [3, 2, 1, 1, 1, 1, 1])
    // Re-import: B resolves to PENDING and changes brand, A unchanged, D new.
    await importTransactions([
      line(admin, 'A', { payment_status: 'PAID' }),
      line(admin, 'B', { payment_status: 'PENDING', payment_brand: 'gcash' }),
      line(admin, 'D', { payment_status: null, legacy_status: 'S', payment_brand: 'maya' }),
    ])
    assert.deepEqual(await totals(), await counted())
    assert.deepEqual(await totals(), [4, 2, 2, 1, 1, 1, 1])
    await db.from('transactions').where('merchant_transaction_id', 'C').delete()
    await db
      .from('transactions')
      .where('merchant_transaction_id', 'T')
      .update({ environment: 'live' })
    assert.deepEqual(await totals(), await counted())
    assert.deepEqual(await totals(), [4, 3, 1, 0, 0, 1, 2])
  })

  test('history_available: unpurged evidence of a permitted kind exists', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'NONE', { created_at: '2026-03-05T00:00:00Z' }),
      line(admin, 'PROVIDER-ONLY', {
        created_at: '2026-03-04T00:00:00Z',
        events: [{ kind: 'provider.request', captured_at: '2026-03-04T00:00:00Z', body: {} }],
      }),
      line(admin, 'PURGED-ONLY', {
        created_at: '2026-03-03T00:00:00Z',
        events: [
          {
            ...merchantRequest('PURGED-ONLY', '2026-03-03T00:00:00Z'),
            body: undefined,
            purged_at: '2026-03-10T00:00:00Z',
          },
        ],
      }),
      line(admin, 'EXPIRED-UNPURGED', {
        created_at: '2026-03-02T00:00:00Z',
        events: [
          {
            ...merchantRequest('EXPIRED-UNPURGED', '2024-03-02T00:00:00Z'),
            retain_until: '2025-03-02T00:00:00Z',
          },
        ],
      }),
      line(admin, 'ATTEMPT-ONLY', {
        created_at: '2026-03-01T00:00:00Z',
        events: [
          { kind: 'merchant_notification.delivery_attempt', captured_at: '2026-03-01T00:00:00Z' },
        ],
      }),
    ])
    const response = await list(client, admin)
    assert.deepEqual(
      response
        .body()
        .data.map((item: { merchant_transaction_id: string; history_available: boolean }) => [
          item.merchant_transaction_id,
          item.history_available,
        ]),
      [
        ['NONE', false],
        ['PROVIDER-ONLY', false],
        ['PURGED-ONLY', false],
        ['EXPIRED-UNPURGED', true],
        ['ATTEMPT-ONLY', true],
      ]
    )
  })

  test('unlisted, repeated, oversized or malformed query fields are 422, never 500', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const long = 'x'.repeat(101)
    const urls = [
      `${route('collections.transactions.index')}?environment=live&unknown=1`,
      `${route('collections.transactions.index')}?environment=live&amount=1`,
      `${route('collections.transactions.index')}?environment=live&status=PAID&status=PAID`,
      `${route('collections.transactions.index')}?environment=live&environment=live`,
      `${route('collections.transactions.index')}?environment[]=live`,
      `${route('collections.transactions.index')}?environment[a]=live`,
      `${route('collections.transactions.index')}?environment=live&status=paid`,
      `${route('collections.transactions.index')}?environment=live&query=${long}`,
      `${route('collections.transactions.index')}?environment=live&query=`,
      `${route('collections.transactions.index')}?environment=live&query=%20%20`,
      `${route('collections.transactions.index')}?environment=live&merchant_transaction_id=${long}`,
      `${route('collections.transactions.index')}?environment=live&payment_brand=${long}`,
      `${route('collections.transactions.index')}?environment=live&query=a%00b`,
      `${route('collections.transactions.index')}?environment=live&page=99999999999999999999999`,
      `${route('collections.transactions.index')}?environment=live&per_page=1e2`,
      `${route('collections.transactions.index')}?environment=live&from=${'9'.repeat(5000)}&to=x`,
    ]
    for (const url of urls) {
      const response = await client.get(url).header('Authorization', admin.bearer)
      assert.equal(response.status(), 422, url)
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    }
  })

  test('query fields the query-string parser would drop are still unlisted: 422 on their names', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const index = route('collections.transactions.index')
    const cases: Array<[string, string]> = [
      ['constructor=x', 'constructor'],
      ['__proto__=x', '__proto__'],
      ['toString=1', 'toString'],
      ['hasOwnProperty=1', 'hasOwnProperty'],
      ['constructor[prototype][x]=1', 'constructor'],
      ['__proto__[environment]=test', '__proto__'],
      // qs keeps the first 1,000 parameters only; what follows is still read.
      [`${'unknown=1&'.repeat(1000)}page=2&interval=day`, 'interval'],
    ]
    for (const [query, field] of cases) {
      const response = await client
        .get(`${index}?environment=live&${query}`)
        .header('Authorization', admin.bearer)
      assert.equal(response.status(), 422, query.slice(0, 40))
      assert.isTrue(Object.hasOwn(response.body().errors, field), query.slice(0, 40))
    }
    // The same on a route that takes `environment` only.
    const detail = await client
      .get(
        `${route('collections.transactions.show', { transaction: 1 })}?environment=live&toString=1`
      )
      .header('Authorization', admin.bearer)
    detail.assertStatus(422)
    assert.isTrue(Object.hasOwn(detail.body().errors, 'toString'))
  })

  test('lengths count characters: 100 astral characters pass a max-100 filter, 101 do not', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const emoji = '\u{1F600}'
    await importTransactions([line(admin, emoji.repeat(100), { payment_brand: emoji.repeat(100) })])
    for (const field of ['merchant_transaction_id', 'query', 'payment_brand']) {
      const fits = await list(client, admin, { [field]: emoji.repeat(100) })
      fits.assertStatus(200)
      assert.lengthOf(fits.body().data, 1, field)
      const over = await list(client, admin, { [field]: emoji.repeat(101) })
      over.assertStatus(422)
      assert.property(over.body().errors, field)
    }
  })

  test('a comma is part of a query value, not a list separator', async ({ client, assert }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'A,B', { payment_brand: 'brand,one' }),
      line(admin, 'C', { payment_brand: 'brand' }),
    ])
    const index = route('collections.transactions.index')
    for (const query of ['payment_brand=brand,one', 'merchant_transaction_id=A,B', 'query=A,']) {
      const response = await client
        .get(`${index}?environment=live&${query}`)
        .header('Authorization', admin.bearer)
      response.assertStatus(200)
      assert.deepEqual(references(response), ['A,B'], query)
    }
  })

  test('a merchant selector naming another merchant is 403 MERCHANT_SCOPE_MISMATCH', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const other = await signedInMember()
    const response = await list(client, admin, { merchant_id: other.merchant.id })
    response.assertStatus(403)
    assert.equal(response.body().error_code, 'MERCHANT_SCOPE_MISMATCH')
  })

  test('the API-wide limit applies per user to every collections route (429 + Retry-After)', async ({
    client,
    assert,
    cleanup,
  }) => {
    const admin = await signedInMember()
    const [stored] = await importTransactions([line(admin, 'R1')])
    cleanup(setLimit('api', 4))
    const paths = [
      `${route('collections.transactions.index')}?environment=live`,
      `${route('collections.transactions.show', { transaction: stored.id })}?environment=live`,
      `${route('collections.history.index', { transaction: stored.id })}?environment=live`,
      `${route('collections.history.show', { transaction: stored.id, history: '01JNB8Q3M4ZC8Y6B2W9XK5T7RA' })}?environment=live`,
    ]
    const statuses = []
    for (const path of paths) {
      const response = await client.get(path).header('Authorization', admin.bearer)
      statuses.push(response.status())
    }
    assert.deepEqual(statuses, [200, 200, 200, 404])
    const refused = await client.get(paths[0]).header('Authorization', admin.bearer)
    refused.assertStatus(429)
    assert.equal(refused.body().error_code, 'RATE_LIMITED')
    assert.match(refused.header('retry-after') ?? '', /^[1-9][0-9]*$/)
  })

  test('without a PAT: 401', async ({ client, assert }) => {
    const response = await client
      .get(route('collections.transactions.index'))
      .qs({ environment: 'live' })
    response.assertStatus(401)
    assert.equal(response.body().error_code, 'UNAUTHENTICATED')
  })

  test('the list only reads: no payment, transaction or audit row is written', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    await importTransactions([
      line(admin, 'R1', { events: [merchantRequest('R1', '2026-03-01T00:00:00Z')] }),
    ])
    const before = await db.from('exchange_evidence').select('*')
    const auditsBefore = await db.from('audit_logs').select('id')
    const transactionsBefore = await db.from('transactions').select('*')
    await list(client, admin)
    assert.deepEqual(await db.from('exchange_evidence').select('*'), before)
    assert.deepEqual(await db.from('transactions').select('*'), transactionsBefore)
    assert.deepEqual(await db.from('audit_logs').select('id'), auditsBefore)
  })
})
