/*
| Authentication of the Portal application on login, and of Portal users by PAT on
| protected routes (portal-api.md › Authentication rules 1-3, Errors; decisions.md §1).
*/
import { randomBytes } from 'node:crypto'
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { TEST_PORTAL_CLIENT_SECRET } from '#database/factories/portal_client_factory'
import { resetState, setNow, advanceClock } from '#tests/helpers/database'
import {
  appHeaders,
  basicAuthorization,
  createMerchantWithUser,
  createPortalClient,
  issuePat,
  signedInMember,
  PORTAL_ORIGIN,
} from '#tests/helpers/portal'
import { countRows, encodeTokenId, ERROR_ENVELOPE_KEYS, patParts } from '#tests/helpers/foundation'
import Merchant from '#models/merchant'
import PortalClient from '#models/portal_client'
import User from '#models/user'
import { route } from '#tests/helpers/routes'
import { getProfile, portalLogin } from '#tests/helpers/requests'

test.group('Portal application authentication on login', (group) => {
  group.each.setup(() => resetState())

  async function loginSetup() {
    const app = await createPortalClient()
    const { user, password } = await createMerchantWithUser()
    return { app, body: { username: user.email, password } }
  }

  const FAILURES: Array<[string, (app: PortalClient) => Promise<Record<string, string>>]> = [
    ['missing Basic credentials', async () => ({ 'X-Service-Application': 'merchant_portal' })],
    [
      'a Bearer token instead of Basic credentials',
      async () => ({ 'Authorization': 'Bearer abc', 'X-Service-Application': 'merchant_portal' }),
    ],
    [
      'a wrong client secret',
      async (app) => ({ ...appHeaders(app, 'not-the-secret'), Origin: PORTAL_ORIGIN }),
    ],
    [
      'an unknown client id',
      async () => ({
        'Authorization': basicAuthorization('pc_unknown', TEST_PORTAL_CLIENT_SECRET),
        'X-Service-Application': 'merchant_portal',
      }),
    ],
    [
      'an inactive client',
      async (app) => {
        await PortalClient.query().where('id', app.id).update({ is_active: false })
        return appHeaders(app)
      },
    ],
    [
      'a missing X-Service-Application header',
      async (app) => ({ Authorization: appHeaders(app).Authorization }),
    ],
    [
      'a wrong X-Service-Application header',
      async (app) => ({ ...appHeaders(app), 'X-Service-Application': 'merchant_portal_x' }),
    ],
    [
      'an Origin outside the allowed origins',
      async (app) => ({ ...appHeaders(app), Origin: 'https://evil.example.test' }),
    ],
    [
      'a client id holding a NUL character',
      async (app) => ({
        ...appHeaders(app),
        Authorization: basicAuthorization(`${app.clientId}\u0000`, TEST_PORTAL_CLIENT_SECRET),
      }),
    ],
    [
      'a client id that is not UTF-8',
      async () => ({
        'Authorization': `Basic ${Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(':x')]).toString('base64')}`,
        'X-Service-Application': 'merchant_portal',
      }),
    ],
  ]

  for (const [name, headersFor] of FAILURES) {
    test(`${name} is 401 ECOSYSTEM_CLIENT_UNAUTHENTICATED`, async ({ client, assert }) => {
      const { app, body } = await loginSetup()
      const response = await client
        .post(route('auth.login'))
        .headers(await headersFor(app))
        .json(body)
      response.assertStatus(401)
      assert.deepEqual(response.body(), {
        success: false,
        message: response.body().message,
        error_code: 'ECOSYSTEM_CLIENT_UNAUTHENTICATED',
      })
      response.assertHeader('cache-control', 'no-store')
      response.assertHeader('www-authenticate', 'Basic realm="portal", charset="UTF-8"')
      assert.equal(await countRows('auth_access_tokens'), 0)
    })
  }

  test('an allowed Origin passes', async ({ client }) => {
    const { app, body } = await loginSetup()
    const response = await portalLogin(client, app, body, { Origin: PORTAL_ORIGIN })
    response.assertStatus(200)
  })

  test('the Basic scheme name is case-insensitive (RFC 7235)', async ({ client }) => {
    const { app, body } = await loginSetup()
    for (const scheme of ['basic', 'BASIC']) {
      const response = await client
        .post(route('auth.login'))
        .headers({
          ...appHeaders(app),
          Authorization: appHeaders(app).Authorization.replace(/^Basic/, scheme),
        })
        .json(body)
      response.assertStatus(200)
    }
  })

  test('an absent Origin passes', async ({ client }) => {
    const { app, body } = await loginSetup()
    const response = await portalLogin(client, app, body)
    response.assertStatus(200)
  })

  test('the 401 comes before the body is read (malformed JSON with bad credentials)', async ({
    client,
  }) => {
    const { app } = await loginSetup()
    const request = client
      .post(route('auth.login'))
      .headers(appHeaders(app, 'not-the-secret'))
      .type('json')
    request.request.send('{"username": "broken')
    const response = await request
    response.assertStatus(401)
    response.assertBodyContains({ error_code: 'ECOSYSTEM_CLIENT_UNAUTHENTICATED' })
  })
})

test.group('Portal PAT middleware › token checks', (group) => {
  group.each.setup(() => resetState())

  test('no Authorization header is 401 UNAUTHENTICATED', async ({ client, assert }) => {
    await signedInMember()
    for (const request of [client.get(route('profile.show')), client.post(route('auth.logout'))]) {
      const response = await request
      response.assertStatus(401)
      assert.deepEqual(response.body(), {
        success: false,
        message: response.body().message,
        error_code: 'UNAUTHENTICATED',
      })
      // RFC 6750 §3: a 401 carries the Bearer challenge, without an error code here.
      response.assertHeader('www-authenticate', 'Bearer realm="portal"')
    }
  })

  test('credentials of another scheme only (no bearer token sent) are 401 UNAUTHENTICATED', async ({
    client,
    assert,
  }) => {
    const { pat, client: app } = await signedInMember()
    const cases: Array<[string, string]> = [
      ['Basic scheme', appHeaders(app).Authorization],
      ['Basic scheme carrying the PAT', `Basic ${pat}`],
      ['Digest scheme', 'Digest username="a", realm="b"'],
      ['a scheme named like Bearer', `Bearerx ${pat}`],
      ['blank', '   '],
    ]
    for (const [name, authorization] of cases) {
      for (const request of [
        client.get(route('profile.show')),
        client.post(route('auth.logout')),
      ]) {
        const response = await request.header('Authorization', authorization)
        assert.equal(response.status(), 401, name)
        assert.equal(response.body().error_code, 'UNAUTHENTICATED', name)
      }
    }
  })

  test('a bad Authorization header is 401 ACCESS_TOKEN_INVALID', async ({ client, assert }) => {
    const { pat, client: app } = await signedInMember()
    const { encodedId, secret } = patParts(pat)
    const otherSecret = randomBytes(40).toString('base64url')
    const cases: Array<[string, string]> = [
      ['both schemes in one header', `Bearer ${pat}, ${appHeaders(app).Authorization}`],
      ['both schemes, Basic first', `${appHeaders(app).Authorization}, Bearer ${pat}`],
      ['garbage', 'Bearer garbage'],
      ['scheme only', 'Bearer'],
      ['an unknown token id', `Bearer pat_${encodeTokenId(987654)}.${secret}`],
      ['a non-numeric token id', `Bearer pat_${encodeTokenId('abc')}.${secret}`],
      ['a token id past bigint', `Bearer pat_${encodeTokenId('99999999999999999999')}.${secret}`],
      ['the right id with a wrong secret', `Bearer pat_${encodedId}.${otherSecret}`],
      ['the right id with a truncated secret', `Bearer pat_${encodedId}.${secret.slice(0, -2)}`],
      ['a foreign prefix', `Bearer oat_${encodedId}.${secret}`],
    ]
    for (const [name, authorization] of cases) {
      for (const request of [
        client.get(route('profile.show')),
        client.post(route('auth.logout')),
      ]) {
        const response = await request.header('Authorization', authorization)
        assert.equal(response.status(), 401, name)
        assert.equal(response.body().error_code, 'ACCESS_TOKEN_INVALID', name)
        assert.sameMembers(Object.keys(response.body()), ['success', 'message', 'error_code'])
        assert.equal(
          response.header('www-authenticate'),
          'Bearer realm="portal", error="invalid_token"',
          name
        )
      }
    }
    // The real token still works: nothing above revoked it.
    const ok = await getProfile(client, `Bearer ${pat}`)
    ok.assertStatus(200)
  })

  test('the Bearer scheme name is case-insensitive (RFC 7235)', async ({ client }) => {
    const { pat } = await signedInMember()
    for (const scheme of ['bearer', 'BEARER']) {
      const response = await getProfile(client, `${scheme} ${pat}`)
      response.assertStatus(200)
    }
  })

  test('an expired PAT is 401 ACCESS_TOKEN_INVALID', async ({ client }) => {
    setNow('2031-01-01T00:00:00.000Z')
    const { bearer } = await signedInMember()
    advanceClock(59 * 60_000)
    const stillValid = await getProfile(client, bearer)
    stillValid.assertStatus(200)
    setNow('2031-01-01T01:00:00.000Z')
    const response = await getProfile(client, bearer)
    response.assertStatus(401)
    response.assertBodyContains({ error_code: 'ACCESS_TOKEN_INVALID' })
  })

  test('a PAT revoked by logout is 401 ACCESS_TOKEN_INVALID', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    const logout = await client.post(route('auth.logout')).header('Authorization', bearer)
    logout.assertStatus(200)
    assert.deepEqual(logout.body(), { success: true, message: logout.body().message, data: null })
    for (const request of [client.get(route('profile.show')), client.post(route('auth.logout'))]) {
      const response = await request.header('Authorization', bearer)
      response.assertStatus(401)
      response.assertBodyContains({ error_code: 'ACCESS_TOKEN_INVALID' })
    }
  })

  test('logout revokes only the current PAT', async ({ client, assert }) => {
    const { bearer, user, client: app } = await signedInMember()
    const second = await issuePat(user, app)
    const other = await signedInMember()

    const logout = await client
      .post(route('auth.logout'))
      .header('Authorization', bearer)
      .json({ extra: 1 })
    logout.assertStatus(200)

    const again = await getProfile(client, bearer)
    again.assertStatus(401)
    const sameUser = await getProfile(client, `Bearer ${second}`)
    sameUser.assertStatus(200)
    const otherUser = await getProfile(client, other.bearer)
    otherUser.assertStatus(200)
    assert.equal(await countRows('auth_access_tokens'), 2)
  })

  test('a PAT without the merchant-portal ability is 403 ACCESS_TOKEN_SCOPE_INSUFFICIENT', async ({
    client,
  }) => {
    const { user, client: app } = await signedInMember()
    const pat = await issuePat(user, app, { abilities: ['reports:read'] })
    const response = await getProfile(client, `Bearer ${pat}`)
    response.assertStatus(403)
    response.assertBodyContains({ success: false, error_code: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT' })
  })

  test('a PAT whose issuing Portal client was deactivated is 403 ECOSYSTEM_APPLICATION_NOT_AUTHORIZED', async ({
    client,
  }) => {
    const { bearer, client: app } = await signedInMember()
    await PortalClient.query().where('id', app.id).update({ is_active: false })
    const response = await getProfile(client, bearer)
    response.assertStatus(403)
    response.assertBodyContains({ error_code: 'ECOSYSTEM_APPLICATION_NOT_AUTHORIZED' })
  })
})

test.group('Portal PAT middleware › account eligibility', (group) => {
  group.each.setup(() => resetState())

  const INELIGIBLE: Array<[string, (user: User, merchant: Merchant) => Promise<unknown>]> = [
    ['an inactive user', (user) => User.query().where('id', user.id).update({ is_active: false })],
    [
      'an inactive merchant',
      (_, merchant) => Merchant.query().where('id', merchant.id).update({ is_active: false }),
    ],
    ['an internal role (50)', (user) => User.query().where('id', user.id).update({ role: 50 })],
    ['a detached user', (user) => User.query().where('id', user.id).update({ merchant_id: null })],
  ]

  for (const [name, spoil] of INELIGIBLE) {
    test(`${name} is 403 MERCHANT_USER_NOT_AUTHORIZED`, async ({ client }) => {
      const { bearer, user, merchant } = await signedInMember()
      const before = await getProfile(client, bearer)
      before.assertStatus(200)
      await spoil(user, merchant)
      for (const request of [
        client.get(route('profile.show')),
        client.post(route('auth.logout')),
      ]) {
        const response = await request.header('Authorization', bearer)
        response.assertStatus(403)
        response.assertBodyContains({ success: false, error_code: 'MERCHANT_USER_NOT_AUTHORIZED' })
      }
    })
  }
})

test.group('GET /portal/me', (group) => {
  group.each.setup(() => resetState())

  test('returns the exact Profile shape', async ({ client, assert }) => {
    const { bearer, user, merchant } = await signedInMember('developer')
    const response = await getProfile(client, bearer)
    response.assertStatus(200)
    assert.deepEqual(response.body(), {
      success: true,
      message: response.body().message,
      data: {
        id: user.id,
        reference_id: user.referenceId,
        first_name: user.firstName,
        last_name: user.lastName,
        username: user.username,
        email: user.email,
        pending_email: null,
        pending_email_expires_at: null,
        email_verified_at: null,
        role: 'developer',
        is_active: true,
        merchant: { id: merchant.id, reference_id: merchant.referenceId, name: merchant.name },
      },
    })
    assert.isString(response.body().message)
    assert.notMatch(response.text(), /password|hash/i)
  })

  test('Portal responses carry Cache-Control: no-store, errors included', async ({ client }) => {
    const { bearer } = await signedInMember()
    const responses = [
      await getProfile(client, bearer),
      await client.get(route('profile.show')),
      await getProfile(client, 'Bearer nope'),
      await getProfile(client, bearer).qs({ merchant_id: '999999' }),
      await client.post(route('auth.login')).json({}),
      await client.get('/api/v1/unknown'),
    ]
    for (const response of responses) response.assertHeader('cache-control', 'no-store')
  })
})

test.group('PAT last_used_at', (group) => {
  group.each.setup(() => resetState())

  async function lastUsedAt() {
    const row = await db.from('auth_access_tokens').select('last_used_at').firstOrFail()
    return row.last_used_at === null ? null : new Date(row.last_used_at).toISOString()
  }

  test('is set on first use', async ({ client, assert }) => {
    setNow('2031-02-03T04:05:06.000Z')
    const { bearer } = await signedInMember()
    assert.isNull(await lastUsedAt())
    const response = await getProfile(client, bearer)
    response.assertStatus(200)
    assert.equal(await lastUsedAt(), '2031-02-03T04:05:06.000Z')
  })

  test('is not rewritten by another request within the same minute', async ({ client, assert }) => {
    setNow('2031-02-03T04:05:06.000Z')
    const { bearer } = await signedInMember()
    await getProfile(client, bearer)
    advanceClock(59_000)
    const response = await getProfile(client, bearer)
    response.assertStatus(200)
    assert.equal(await lastUsedAt(), '2031-02-03T04:05:06.000Z')
  })

  test('is rewritten once the clock has moved more than 60 seconds', async ({ client, assert }) => {
    setNow('2031-02-03T04:05:06.000Z')
    const { bearer } = await signedInMember()
    await getProfile(client, bearer)
    setNow('2031-02-03T04:06:07.000Z')
    const response = await getProfile(client, bearer)
    response.assertStatus(200)
    assert.equal(await lastUsedAt(), '2031-02-03T04:06:07.000Z')
  })

  test('a valid token id with a wrong secret does not write last_used_at', async ({
    client,
    assert,
  }) => {
    const { pat } = await signedInMember()
    const { encodedId } = patParts(pat)
    const forged = `Bearer pat_${encodedId}.${randomBytes(40).toString('base64url')}`
    const response = await getProfile(client, forged)
    response.assertStatus(401)
    assert.isNull(await lastUsedAt())
  })
})

test.group('Merchant selector on Portal routes', (group) => {
  group.each.setup(() => resetState())

  test('another merchant in ?merchant_id or X-Merchant-Id is 403 MERCHANT_SCOPE_MISMATCH', async ({
    client,
    assert,
  }) => {
    const { bearer } = await signedInMember()
    const other = await signedInMember()
    const attempts = [
      getProfile(client, bearer).qs({ merchant_id: String(other.merchant.id) }),
      getProfile(client, bearer).header('X-Merchant-Id', String(other.merchant.id)),
      getProfile(client, bearer).qs({ merchant_reference_id: other.merchant.referenceId }),
      client
        .post(route('auth.logout'))
        .header('Authorization', bearer)
        .json({ merchant_id: other.merchant.id }),
    ]
    for (const attempt of attempts) {
      const response = await attempt
      response.assertStatus(403)
      assert.deepEqual(response.body(), {
        success: false,
        message: response.body().message,
        error_code: 'MERCHANT_SCOPE_MISMATCH',
      })
    }
    // The logout attempt was refused: the token still works.
    const me = await getProfile(client, bearer)
    me.assertStatus(200)
  })

  test("the caller's own merchant id passes", async ({ client }) => {
    const { bearer, merchant } = await signedInMember()
    const viaQuery = await getProfile(client, bearer).qs({ merchant_id: String(merchant.id) })
    viaQuery.assertStatus(200)
    const viaHeader = await getProfile(client, bearer).header('X-Merchant-Id', String(merchant.id))
    viaHeader.assertStatus(200)
  })
})

test.group('Error bodies of the PAT middleware', (group) => {
  group.each.setup(() => resetState())

  test('carry only the envelope keys', async ({ client, assert }) => {
    const { user, client: app } = await signedInMember()
    const pat = await issuePat(user, app, { abilities: [] })
    const response = await getProfile(client, `Bearer ${pat}`)
    response.assertStatus(403)
    assert.includeMembers(ERROR_ENVELOPE_KEYS, Object.keys(response.body()))
  })
})
