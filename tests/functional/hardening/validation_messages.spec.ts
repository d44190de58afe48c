/*
| Issue 22 › 4: a 422 names the rule that failed (bounds, allowed values, the pattern in
| words) and every field that fails, over HTTP. The validators' messages come from
| app/validators/rules/messages.ts (VineJS's own rules), rules/pattern.ts (patterns),
| rules/pagination.ts; cross-field rules run beside the field rules
| (rules/input.ts › CrossFieldRule) and the currency catalogue's verdict joins them
| (rules/currency.ts).
*/
import { test } from '@japa/runner'
import type { Assert } from '@japa/assert'
import type { ApiClient, ApiResponse } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { liftLimit } from '#tests/helpers/limits'
import { signedInMember, type Session } from '#tests/helpers/portal'
import { route, type RouteName } from '#tests/helpers/routes'

const RANGE = { from: '2026-03-01T00:00:00+08:00', to: '2026-04-01T00:00:00+08:00' }
const REVERSED = { from: RANGE.to, to: RANGE.from }
const REPORT = { environment: 'live', currency: 'PHP', ...RANGE }
const ELEVEN_YEARS = { from: '2015-03-01T00:00:00+08:00', to: '2026-03-01T00:00:00+08:00' }

const MESSAGES = {
  page: 'The page field must be an integer from 1 to 9007199254740991.',
  perPage: 'The per_page field must be an integer from 1 to 100.',
  environment: 'The environment field must be one of: test, live.',
  currencyShape:
    'The currency field must be three upper-case letters (an ISO 4217 code such as PHP).',
  currencyCatalogue: 'The currency field must be a currency of the supported catalogue.',
  order: 'The to field must be after from.',
  tenYears: 'The range must not exceed 10 calendar years.',
}

type Query = Record<string, string>

function getQuery(client: ApiClient, session: Session, name: RouteName, query: Query, params = {}) {
  return client.get(route(name, params)).header('Authorization', session.bearer).qs(query)
}

async function expectErrors(
  response: ApiResponse,
  assert: Assert,
  expected: Record<string, string[]>
) {
  response.assertStatus(422)
  assert.equal(response.body().error_code, 'VALIDATION_ERROR')
  assert.deepEqual(response.body().errors, expected)
}

test.group('Validation messages name the rule, and every field that fails', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => liftLimit('api'))

  test('per_page=500 and page=0 name the bounds of every paginated list', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const lists: Array<[RouteName, Query, Record<string, number>?]> = [
      ['collections.transactions.index', { environment: 'live' }],
      ['collections.history.index', { environment: 'live' }, { transaction: 1 }],
      ['team.members.index', {}],
      ['team.invitations.index', {}],
      ['merchant.machine_clients.index', {}],
    ]
    for (const [name, query, params] of lists) {
      const response = await getQuery(
        client,
        admin,
        name,
        { ...query, per_page: '500', page: '0' },
        params
      )
      await expectErrors(response, assert, {
        page: [MESSAGES.page],
        per_page: [MESSAGES.perPage],
      })
    }
    // The upper bound of page is the same rule, the same message.
    const past = await getQuery(client, admin, 'collections.transactions.index', {
      environment: 'live',
      page: '9007199254740992',
    })
    await expectErrors(past, assert, { page: [MESSAGES.page] })
  })

  test('environment=LIVE names test and live on every collections route', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const routes: Array<[RouteName, Query, Record<string, number | string>?]> = [
      ['collections.transactions.index', {}],
      ['collections.transactions.show', {}, { transaction: 1 }],
      ['collections.history.index', {}, { transaction: 1 }],
      ['collections.history.show', {}, { transaction: 1, history: '01JAAAAAAAAAAAAAAAAAAAAAAA' }],
      ['collections.metrics', { ...REPORT }],
      ['collections.charts', { ...REPORT, interval: 'day' }],
    ]
    for (const [name, query, params] of routes) {
      const response = await getQuery(
        client,
        member,
        name,
        { ...query, environment: 'LIVE' },
        params
      )
      await expectErrors(response, assert, { environment: [MESSAGES.environment] })
    }
  })

  test('a range over ten years is an error on to for metrics (which take no interval), on to and interval for charts', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const metrics = await getQuery(client, member, 'collections.metrics', {
      ...REPORT,
      ...ELEVEN_YEARS,
    })
    await expectErrors(metrics, assert, { to: [MESSAGES.tenYears] })
    const chart = await getQuery(client, member, 'collections.charts', {
      ...REPORT,
      ...ELEVEN_YEARS,
      interval: 'year',
    })
    await expectErrors(chart, assert, { to: [MESSAGES.tenYears], interval: [MESSAGES.tenYears] })
  })

  test('currency=php together with from > to reports both fields', async ({ client, assert }) => {
    const member = await signedInMember()
    const expected = { currency: [MESSAGES.currencyShape], to: [MESSAGES.order] }
    const list = await getQuery(client, member, 'collections.transactions.index', {
      environment: 'live',
      currency: 'php',
      ...REVERSED,
    })
    await expectErrors(list, assert, expected)
    const metrics = await getQuery(client, member, 'collections.metrics', {
      ...REPORT,
      currency: 'php',
      ...REVERSED,
    })
    await expectErrors(metrics, assert, expected)
    const chart = await getQuery(client, member, 'collections.charts', {
      ...REPORT,
      currency: 'php',
      ...REVERSED,
      interval: 'day',
    })
    await expectErrors(chart, assert, expected)
  })

  test('a currency the catalogue refuses is reported with the fields that fail their own rules', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const list = await getQuery(client, member, 'collections.transactions.index', {
      environment: 'LIVE',
      currency: 'ZZZ',
      ...REVERSED,
    })
    await expectErrors(list, assert, {
      environment: [MESSAGES.environment],
      currency: [MESSAGES.currencyCatalogue],
      to: [MESSAGES.order],
    })
    const metrics = await getQuery(client, member, 'collections.metrics', {
      ...REPORT,
      currency: 'ZZZ',
      ...ELEVEN_YEARS,
      per_page: '5',
    })
    await expectErrors(metrics, assert, {
      currency: [MESSAGES.currencyCatalogue],
      to: [MESSAGES.tenYears],
      per_page: ['The per_page field is not allowed.'],
    })
    // The bucket limit, found by the chart itself, joins the catalogue's refusal too.
    const chart = await getQuery(client, member, 'collections.charts', {
      ...REPORT,
      currency: 'ZZZ',
      from: '2025-01-01T00:00:00+08:00',
      to: '2026-03-01T00:00:00+08:00',
      interval: 'day',
    })
    chart.assertStatus(422)
    assert.sameMembers(Object.keys(chart.body().errors), ['currency', 'interval'])
    assert.deepEqual(chart.body().errors.currency, [MESSAGES.currencyCatalogue])
  })

  test('an unreadable catalogue is 503 for an otherwise valid request, and gives way to the 422 of one that is not', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    await db.rawQuery('ALTER TABLE currencies RENAME TO currencies_hidden')
    try {
      const valid = await getQuery(client, member, 'collections.transactions.index', {
        environment: 'live',
        currency: 'PHP',
      })
      valid.assertStatus(503)
      assert.equal(valid.body().error_code, 'SERVICE_UNAVAILABLE')
      // Wrong whatever the catalogue says: not "try again later".
      const list = await getQuery(client, member, 'collections.transactions.index', {
        environment: 'LIVE',
        currency: 'PHP',
      })
      await expectErrors(list, assert, { environment: [MESSAGES.environment] })
      const metrics = await getQuery(client, member, 'collections.metrics', {
        ...REPORT,
        ...REVERSED,
      })
      await expectErrors(metrics, assert, { to: [MESSAGES.order] })
      // A bucket limit found by the chart itself gives way to no 503 either.
      const chart = await getQuery(client, member, 'collections.charts', {
        ...REPORT,
        from: '2025-01-01T00:00:00+08:00',
        to: '2026-03-01T00:00:00+08:00',
        interval: 'day',
      })
      chart.assertStatus(422)
      assert.deepEqual(Object.keys(chart.body().errors), ['interval'])
    } finally {
      await db.rawQuery('ALTER TABLE currencies_hidden RENAME TO currencies')
    }
  })

  test('a field failing its own rule hides no other: bad text, a missing bound, an unknown zone', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const list = await getQuery(client, member, 'collections.transactions.index', {
      environment: 'live',
      query: 'a\u0000b',
      status: 'paid',
      ...REVERSED,
    })
    await expectErrors(list, assert, {
      query: ['The query field must not contain a NUL character or an unpaired UTF-16 surrogate.'],
      status: ['The status field must be one of: PAID, PENDING, REJECTED.'],
      to: [MESSAGES.order],
    })
    const oneBound = await getQuery(client, member, 'collections.transactions.index', {
      environment: 'live',
      from: RANGE.from,
    })
    await expectErrors(oneBound, assert, { to: ['The to field is required when from is given.'] })
    // The order needs no timezone; the ten years do, so an unknown zone leaves them unchecked.
    const zone = await getQuery(client, member, 'collections.charts', {
      ...REPORT,
      ...REVERSED,
      timezone: 'Mars/Olympus',
      interval: 'week',
    })
    await expectErrors(zone, assert, {
      timezone: ['The timezone field must be an IANA time zone name such as Asia/Manila.'],
      interval: ['The interval field must be one of: day, month, year.'],
      to: [MESSAGES.order],
    })
  })

  test('request bodies: enums list their values, patterns say their rule in words', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const cases: Array<[string, RouteName, Record<string, unknown>, Record<string, string[]>]> = [
      [
        'post',
        'team.invitations.store',
        { email: 'new@example.test', role: 'owner' },
        { role: ['The role field must be one of: administrator, developer.'] },
      ],
      [
        'patch',
        'merchant.update',
        { name: 'Line\nbreak', address: 'Bell\u0007' },
        {
          name: ['The name field must not contain control characters such as line breaks or tabs.'],
          address: [
            'The address field must not contain control characters other than line breaks and tabs.',
          ],
        },
      ],
      [
        'put',
        'profile.password',
        {
          current_password: admin.password,
          password: 'only-lower-case-1',
          password_confirmation: 'only-lower-case-1',
        },
        {
          password: [
            'The password field must contain an upper-case letter, a lower-case letter, a digit and a symbol.',
          ],
        },
      ],
      [
        'post',
        'profile.email.verify',
        { otp: '12345' },
        { otp: ['The otp field must be a string of six digits.'] },
      ],
      [
        'post',
        'merchant.machine_clients.store',
        { label: '-label', reason: 'A reason long enough', current_password: admin.password },
        {
          label: [
            'The label field must start with an ASCII letter or digit and contain only ASCII letters, digits, spaces, ".", "_" and "-".',
          ],
        },
      ],
    ]
    for (const [method, name, body, expected] of cases) {
      const response = await (client as any)
        [method](route(name))
        .header('Authorization', admin.bearer)
        .json(body)
      await expectErrors(response, assert, expected)
    }
    // Its own message, not VineJS's "must be a valid URL" (a rule named `url` took it).
    const reset = await client
      .post(route('auth.reset_link'))
      .json({ email: 'someone@example.test', reset_url: 'not a url' })
    await expectErrors(reset, assert, {
      reset_url: ['The reset_url field must be an absolute http or https URL.'],
    })
  })
})
