/*
| POST /auth/login (portal-api.md › Login and session; Authentication rule 1):
| identity matching, credential failures, body validation, token lifetime, and who
| may sign in.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { UserFactory, DEFAULT_TEST_PASSWORD } from '#database/factories/user_factory'
import { MerchantFactory } from '#database/factories/merchant_factory'
import { resetState, setNow, advanceClock } from '#tests/helpers/database'
import {
  appHeaders,
  createMerchantWithUser,
  createPortalClient,
  PORTAL_ORIGIN,
} from '#tests/helpers/portal'
import { countRows, ERROR_ENVELOPE_KEYS } from '#tests/helpers/foundation'
import { withEnv } from '#tests/helpers/env'
import { route } from '#tests/helpers/routes'
import { withRaisedLimits } from '#tests/helpers/limits'
import { getProfile } from '#tests/helpers/requests'

async function setup() {
  const app = await createPortalClient()
  return { app, headers: { ...appHeaders(app), Origin: PORTAL_ORIGIN } }
}

test.group('POST /auth/login › identity and credentials', (group) => {
  group.each.setup(() => resetState())

  test('username matches the account username case-insensitively', async ({ client, assert }) => {
    const { headers } = await setup()
    const { merchant } = await createMerchantWithUser()
    const user = await UserFactory.merge({
      merchantId: merchant.id,
      username: 'Shop.Owner',
      email: 'owner@shop.test',
    }).create()
    const response = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({ username: 'sHOP.oWNER', password: DEFAULT_TEST_PASSWORD })
    response.assertStatus(200)
    assert.equal(response.body().data.user.id, user.id)
  })

  test('username matches the account email case-insensitively', async ({ client, assert }) => {
    const { headers } = await setup()
    const { merchant } = await createMerchantWithUser()
    const user = await UserFactory.merge({
      merchantId: merchant.id,
      username: 'shop-owner',
      email: 'owner@shop.test',
    }).create()
    const response = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({ username: 'OWNER@Shop.TEST', password: DEFAULT_TEST_PASSWORD })
    response.assertStatus(200)
    assert.equal(response.body().data.user.id, user.id)
  })

  test('wrong password and unknown user both answer 401 INVALID_CREDENTIALS with the same envelope', async ({
    client,
    assert,
  }) => {
    const { headers } = await setup()
    const { user } = await createMerchantWithUser()
    const wrongPassword = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({ username: user.email, password: 'Wrong-Password-1!' })
    const unknownUser = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({ username: 'nobody@example.test', password: 'Wrong-Password-1!' })
    wrongPassword.assertStatus(401)
    unknownUser.assertStatus(401)
    assert.deepEqual(wrongPassword.body(), {
      success: false,
      message: wrongPassword.body().message,
      error_code: 'INVALID_CREDENTIALS',
    })
    assert.deepEqual(unknownUser.body(), wrongPassword.body())
    assert.equal(await countRows('auth_access_tokens'), 0)
  })

  test('the password is compared untrimmed', async ({ client }) => {
    const { headers } = await setup()
    const { user } = await createMerchantWithUser()
    const response = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({ username: user.email, password: ` ${DEFAULT_TEST_PASSWORD} ` })
    response.assertStatus(401)
    response.assertBodyContains({ error_code: 'INVALID_CREDENTIALS' })
  })

  test('the username is trimmed before matching', async ({ client }) => {
    const { headers } = await setup()
    const { user } = await createMerchantWithUser()
    const response = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({ username: `  ${user.email}  `, password: DEFAULT_TEST_PASSWORD })
    response.assertStatus(200)
  })
})

test.group('POST /auth/login › body validation', (group) => {
  group.each.setup(() => resetState())

  /** Bodies and the fields that must carry an error. Never a 500. */
  const INVALID_BODIES: Array<[string, unknown, string[]]> = [
    ['empty object', {}, ['username', 'password']],
    ['missing password', { username: 'someone' }, ['password']],
    ['missing username', { password: 'secret-password' }, ['username']],
    ['password shorter than 6', { username: 'someone', password: '12345' }, ['password']],
    ['password longer than 128', { username: 'someone', password: 'p'.repeat(129) }, ['password']],
    ['username longer than 255', { username: 'u'.repeat(256), password: 'secret1' }, ['username']],
    [
      'unicode username longer than 255',
      { username: 'ü'.repeat(256), password: 'secret1' },
      ['username'],
    ],
    ['empty strings', { username: '', password: '' }, ['username', 'password']],
    ['whitespace-only username', { username: '   ', password: 'secret1' }, ['username']],
    ['numbers', { username: 12345678, password: 12345678 }, ['username', 'password']],
    ['null values', { username: null, password: null }, ['username', 'password']],
    ['arrays', { username: ['a'], password: ['secret1'] }, ['username', 'password']],
    ['objects', { username: { $ne: null }, password: { length: 10 } }, ['username', 'password']],
    ['booleans', { username: true, password: false }, ['username', 'password']],
    [
      'huge strings',
      { username: 'x'.repeat(40_000), password: 'y'.repeat(20_000) },
      ['username', 'password'],
    ],
    [
      'NUL characters',
      { username: 'some\u0000one', password: 'secret\u00001' },
      ['username', 'password'],
    ],
  ]

  test('invalid bodies are 422 VALIDATION_ERROR with per-field errors, never a 500', async ({
    client,
    assert,
  }) => {
    const { headers } = await setup()
    // Many attempts from one IP and identity: lift the limits, which have their own tests.
    await withRaisedLimits(async () => {
      for (const [name, body, fields] of INVALID_BODIES) {
        const response = await client.post(route('auth.login')).headers(headers).json(body)
        assert.equal(response.status(), 422, name)
        const payload = response.body()
        assert.equal(payload.error_code, 'VALIDATION_ERROR', name)
        assert.isFalse(payload.success, name)
        assert.sameMembers(Object.keys(payload.errors ?? {}), fields, name)
        for (const field of fields) {
          assert.isArray(payload.errors[field], name)
          assert.isNotEmpty(payload.errors[field], name)
          for (const message of payload.errors[field]) assert.isString(message, name)
        }
        assert.includeMembers(ERROR_ENVELOPE_KEYS, Object.keys(payload), name)
      }
    })
  })

  test('hostile keys (__proto__, constructor) are never a 500 and pollute nothing', async ({
    client,
    assert,
  }) => {
    const { headers } = await setup()
    const bodies = [
      '{"__proto__":{"isAdmin":true},"username":"someone","password":"1"}',
      '{"constructor":{"prototype":{"isAdmin":true}},"username":"someone","password":"1"}',
      '{"username":{"__proto__":{"length":3}},"password":"secret1"}',
    ]
    await withRaisedLimits(async () => {
      for (const raw of bodies) {
        const request = client.post(route('auth.login')).headers(headers).type('json')
        request.request.send(raw)
        const response = await request
        assert.oneOf(response.status(), [401, 422], raw)
        assert.includeMembers(ERROR_ENVELOPE_KEYS, Object.keys(response.body()))
      }
    })
    assert.isUndefined(({} as any).isAdmin)
  })

  test('a __proto__ key next to a short password still reports the password field', async ({
    client,
    assert,
  }) => {
    const { headers } = await setup()
    const request = client.post(route('auth.login')).headers(headers).type('json')
    request.request.send('{"__proto__":{"x":1},"username":"someone","password":"1"}')
    const response = await request
    response.assertStatus(422)
    assert.property(response.body().errors, 'password')
  })

  test('unicode identities are matched or refused, never a 500', async ({ client, assert }) => {
    const { headers } = await setup()
    const { merchant } = await createMerchantWithUser()
    await UserFactory.merge({
      merchantId: merchant.id,
      username: 'Jürgen.Ørsted',
      email: 'jurgen@shop.test',
    }).create()
    const matched = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({ username: 'jürgen.ørsted', password: DEFAULT_TEST_PASSWORD })
    matched.assertStatus(200)
    const unknown = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({ username: '💳\u0000\u202E名前', password: DEFAULT_TEST_PASSWORD })
    assert.oneOf(unknown.status(), [401, 422])
  })

  test('unlisted fields are ignored', async ({ client }) => {
    const { headers } = await setup()
    const { user, password } = await createMerchantWithUser()
    const response = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({
        username: user.email,
        password,
        role: 'administrator',
        merchant_id: 999,
        remember_me: true,
        nested: { anything: [1, 2, 3] },
      })
    response.assertStatus(200)
  })
})

test.group('POST /auth/login › issued token', (group) => {
  group.each.setup(() => resetState())

  test('the response has no refresh token', async ({ client, assert }) => {
    const { headers } = await setup()
    const { user, password } = await createMerchantWithUser()
    const response = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({ username: user.email, password })
    response.assertStatus(200)
    assert.sameMembers(Object.keys(response.body().data), [
      'access_token',
      'token_type',
      'expires_at',
      'user',
    ])
    assert.notMatch(JSON.stringify(response.body()), /refresh/i)
  })

  test('expires_at is now + 60 minutes by default', async ({ client, assert }) => {
    const { headers } = await setup()
    const { user, password } = await createMerchantWithUser()
    setNow('2031-05-06T07:08:09.000Z')
    const response = await withEnv({ PAT_TTL_MINUTES: undefined }, () =>
      client.post(route('auth.login')).headers(headers).json({ username: user.email, password })
    )
    response.assertStatus(200)
    assert.equal(response.body().data.expires_at, '2031-05-06T08:08:09.000Z')
    const row = await db.from('auth_access_tokens').firstOrFail()
    assert.equal(new Date(row.expires_at).toISOString(), '2031-05-06T08:08:09.000Z')
  })

  test('expires_at follows PAT_TTL_MINUTES and the token stops working then', async ({
    client,
    assert,
  }) => {
    const { headers } = await setup()
    const { user, password } = await createMerchantWithUser()
    setNow('2031-05-06T07:08:09.000Z')
    const response = await withEnv({ PAT_TTL_MINUTES: 15 }, () =>
      client.post(route('auth.login')).headers(headers).json({ username: user.email, password })
    )
    response.assertStatus(200)
    assert.equal(response.body().data.expires_at, '2031-05-06T07:23:09.000Z')
    const bearer = `Bearer ${response.body().data.access_token}`

    advanceClock(14 * 60_000)
    const before = await getProfile(client, bearer)
    before.assertStatus(200)
    setNow('2031-05-06T07:23:09.000Z')
    const after = await getProfile(client, bearer)
    after.assertStatus(401)
    after.assertBodyContains({ error_code: 'ACCESS_TOKEN_INVALID' })
  })
})

test.group('POST /auth/login › who may sign in', (group) => {
  group.each.setup(() => resetState())

  const INELIGIBLE: Array<[string, () => Promise<{ username: string }>]> = [
    [
      'an inactive user',
      async () => {
        const merchant = await MerchantFactory.create()
        return UserFactory.apply('inactive').merge({ merchantId: merchant.id }).create()
      },
    ],
    [
      'a user with an internal role (50)',
      async () => {
        const merchant = await MerchantFactory.create()
        return UserFactory.merge({ merchantId: merchant.id, role: 50 }).create()
      },
    ],
    ['a detached user (no merchant)', async () => UserFactory.merge({ merchantId: null }).create()],
    [
      'a user of an inactive merchant',
      async () => {
        const merchant = await MerchantFactory.apply('inactive').create()
        return UserFactory.merge({ merchantId: merchant.id }).create()
      },
    ],
  ]

  for (const [name, makeUser] of INELIGIBLE) {
    test(`${name} with the right password is 403 MERCHANT_USER_NOT_AUTHORIZED`, async ({
      client,
      assert,
    }) => {
      const { headers } = await setup()
      const user = await makeUser()
      const right = await client
        .post(route('auth.login'))
        .headers(headers)
        .json({ username: user.username, password: DEFAULT_TEST_PASSWORD })
      right.assertStatus(403)
      right.assertBodyContains({ success: false, error_code: 'MERCHANT_USER_NOT_AUTHORIZED' })

      const wrong = await client
        .post(route('auth.login'))
        .headers(headers)
        .json({ username: user.username, password: 'Not-The-Password-1' })
      wrong.assertStatus(401)
      wrong.assertBodyContains({ error_code: 'INVALID_CREDENTIALS' })
      assert.equal(await countRows('auth_access_tokens'), 0)
    })
  }

  test('a developer can log in', async ({ client, assert }) => {
    const { headers } = await setup()
    const { user, password } = await createMerchantWithUser({ role: 'developer' })
    const response = await client
      .post(route('auth.login'))
      .headers(headers)
      .json({ username: user.email, password })
    response.assertStatus(200)
    assert.equal(response.body().data.user.role, 10)
    const me = await getProfile(client, `Bearer ${response.body().data.access_token}`)
    me.assertStatus(200)
    assert.equal(me.body().data.role, 'developer')
  })
})
