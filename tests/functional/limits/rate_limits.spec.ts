/*
| Rate limits (portal-api.md › Limits; decisions.md §3). Store-agnostic: CI runs this
| file on the PostgreSQL store and again with REDIS_URL set (Redis store), so the
| tests only speak HTTP and env, never to a store directly.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import type { ApiResponse } from '@japa/api-client'
import type { Assert } from '@japa/assert'
import { resetState } from '#tests/helpers/database'
import {
  createMerchantWithUser,
  createPortalClient,
  issuePat,
  signedInMember,
} from '#tests/helpers/portal'
import { overrideEnv } from '#tests/helpers/env'
import { route } from '#tests/helpers/routes'
import { expectStatus, getProfile, portalLogin } from '#tests/helpers/requests'

/** Every limit starts from its contract number; each test sets what it needs. */
const LIMIT_ENV = {
  RATE_LIMIT_LOGIN_PER_MINUTE: undefined,
  RATE_LIMIT_API_PER_MINUTE: undefined,
  RATE_LIMIT_PROFILE_UPDATE_PER_MINUTE: undefined,
  RATE_LIMIT_MULTIPLIER: undefined,
}

function assertThrottled(assert: Assert, response: ApiResponse, label = '') {
  assert.equal(response.status(), 429, label)
  assert.deepEqual(
    response.body(),
    { success: false, message: response.body().message, error_code: 'RATE_LIMITED' },
    label
  )
  const retryAfter = response.header('retry-after') ?? ''
  assert.match(retryAfter, /^[1-9][0-9]*$/, label)
  assert.isAtMost(Number(retryAfter), 60, label)
}

test.group('Rate limits', (group) => {
  let restoreEnv: (() => void) | undefined
  group.each.setup(async () => {
    await resetState()
    restoreEnv = overrideEnv(LIMIT_ENV)
    return () => restoreEnv?.()
  })

  /** A Portal client and two members; login attempts with a wrong password by default. */
  async function loginSetup() {
    const app = await createPortalClient()
    const first = await createMerchantWithUser()
    const second = await createMerchantWithUser({ merchant: first.merchant })
    return { app, first, second }
  }

  test('login is limited to 5 per minute per application, identity and IP; the 6th is 429 with Retry-After', async ({
    client,
    assert,
  }) => {
    const { app, first, second } = await loginSetup()
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await portalLogin(client, app, {
        username: first.user.email,
        password: 'Wrong-Password-1',
      })
      assert.equal(response.status(), 401, `attempt ${attempt}`)
    }
    // Right password, same identity (other case and spacing), spoofed forwarding header.
    const sixth = await portalLogin(
      client,
      app,
      { username: `  ${first.user.email.toUpperCase()} `, password: first.password },
      { 'X-Forwarded-For': '203.0.113.9' }
    )
    assertThrottled(assert, sixth, 'sixth')

    const otherIdentity = await portalLogin(client, app, {
      username: second.user.email,
      password: second.password,
    })
    otherIdentity.assertStatus(200)

    const otherApplication = await createPortalClient()
    const viaOtherApplication = await portalLogin(client, otherApplication, {
      username: first.user.email,
      password: first.password,
    })
    viaOtherApplication.assertStatus(200)
  })

  test('rejected login requests keep consuming the limit', async ({ client, assert }) => {
    const { app, first } = await loginSetup()
    const attempt = () =>
      portalLogin(client, app, { username: first.user.email, password: first.password })
    for (let index = 1; index <= 5; index++) await expectStatus(attempt(), 200)
    assertThrottled(assert, await attempt(), 'sixth')
    assertThrottled(assert, await attempt(), 'seventh')
    // Raise the limit to 7: had the two refusals not been counted, 5 would be consumed
    // and the eighth attempt allowed; counted, it is the 8th, over 7.
    overrideEnv({ RATE_LIMIT_LOGIN_PER_MINUTE: 7 })
    assertThrottled(assert, await attempt(), 'eighth')
  })

  test('invalid login bodies consume the limit of the submitted identity too', async ({
    client,
    assert,
  }) => {
    const { app, first } = await loginSetup()
    for (let index = 1; index <= 5; index++) {
      const response = await portalLogin(client, app, {
        username: first.user.email,
        password: '123',
      })
      assert.equal(response.status(), 422)
    }
    const response = await portalLogin(client, app, {
      username: first.user.email,
      password: first.password,
    })
    assertThrottled(assert, response)
  })

  test('RATE_LIMIT_LOGIN_PER_MINUTE overrides the login limit', async ({ client, assert }) => {
    overrideEnv({ RATE_LIMIT_LOGIN_PER_MINUTE: 2 })
    const { app, first } = await loginSetup()
    const attempt = () =>
      portalLogin(client, app, { username: first.user.email, password: first.password })
    await expectStatus(attempt(), 200)
    await expectStatus(attempt(), 200)
    assertThrottled(assert, await attempt())
  })

  test('RATE_LIMIT_MULTIPLIER scales the login limit', async ({ client, assert }) => {
    overrideEnv({ RATE_LIMIT_LOGIN_PER_MINUTE: 2, RATE_LIMIT_MULTIPLIER: 2 })
    const { app, first } = await loginSetup()
    const attempt = () =>
      portalLogin(client, app, { username: first.user.email, password: 'Wrong-Password-1' })
    for (let index = 1; index <= 4; index++) await expectStatus(attempt(), 401)
    assertThrottled(assert, await attempt())
  })

  test('the API-wide limit applies per user (RATE_LIMIT_API_PER_MINUTE=3: the 4th is 429)', async ({
    client,
    assert,
  }) => {
    overrideEnv({ RATE_LIMIT_API_PER_MINUTE: 3 })
    const { bearer, user, client: app } = await signedInMember()
    const other = await signedInMember()
    for (let index = 1; index <= 3; index++) {
      await expectStatus(getProfile(client, bearer), 200)
    }
    assertThrottled(assert, await getProfile(client, bearer), 'fourth')
    // Same user through another PAT: same bucket.
    const secondPat = await issuePat(user, app)
    assertThrottled(assert, await getProfile(client, `Bearer ${secondPat}`))
    // Another user has a bucket of their own.
    await expectStatus(getProfile(client, other.bearer), 200)
  })

  test('the API-wide limit is judged after authentication (bad tokens get 401, not 429)', async ({
    client,
    assert,
  }) => {
    overrideEnv({ RATE_LIMIT_API_PER_MINUTE: 1 })
    const { bearer } = await signedInMember()
    await expectStatus(getProfile(client, bearer), 200)
    assertThrottled(assert, await getProfile(client, bearer))
    const anonymous = await client.get(route('profile.show'))
    anonymous.assertStatus(401)
  })

  test('rejected requests consume the API-wide limit: a role refusal, a bad body, another merchant', async ({
    client,
    assert,
  }) => {
    overrideEnv({ RATE_LIMIT_API_PER_MINUTE: 3 })
    const developer = await signedInMember('developer')
    // 403 FORBIDDEN: a developer on an administrators' route.
    await expectStatus(
      client
        .patch(route('merchant.update'))
        .header('Authorization', developer.bearer)
        .json({ name: 'X' }),
      403
    )
    // 422: a malformed JSON body.
    await expectStatus(
      client
        .patch(route('profile.update'))
        .header('Authorization', developer.bearer)
        .unsafeJson('{"first_name":')
        .type('application/json'),
      422
    )
    // 403 MERCHANT_SCOPE_MISMATCH: a selector naming another merchant.
    await expectStatus(getProfile(client, developer.bearer).qs({ merchant_id: 999999 }), 403)
    assertThrottled(assert, await getProfile(client, developer.bearer))
  })

  test("a verified token whose account may not use the Portal consumes its user's API limit", async ({
    client,
    assert,
  }) => {
    overrideEnv({ RATE_LIMIT_API_PER_MINUTE: 2 })
    const member = await signedInMember()
    await db.from('users').where('id', member.user.id).update({ is_active: false })
    for (let index = 1; index <= 2; index++) {
      await expectStatus(getProfile(client, member.bearer), 403)
    }
    await db.from('users').where('id', member.user.id).update({ is_active: true })
    assertThrottled(assert, await getProfile(client, member.bearer))
  })

  test("a route's own limit is consumed by requests its body parsing or merchant scope refuses", async ({
    client,
    assert,
  }) => {
    overrideEnv({ RATE_LIMIT_PROFILE_UPDATE_PER_MINUTE: 2 })
    const member = await signedInMember()
    await expectStatus(
      client
        .patch(route('profile.update'))
        .header('Authorization', member.bearer)
        .unsafeJson('{"first_name":')
        .type('application/json'),
      422
    )
    await expectStatus(
      client
        .patch(route('profile.update'))
        .header('Authorization', member.bearer)
        .json({ first_name: 'Ana', merchant_id: 999999 }),
      403
    )
    assertThrottled(
      assert,
      await client
        .patch(route('profile.update'))
        .header('Authorization', member.bearer)
        .json({ first_name: 'Ana' })
    )
  })

  test('unauthenticated requests count against the API-wide limit of their IP', async ({
    client,
    assert,
  }) => {
    overrideEnv({ RATE_LIMIT_API_PER_MINUTE: 3 })
    const { bearer } = await signedInMember()
    await expectStatus(client.get(route('profile.show')), 401)
    await expectStatus(getProfile(client, 'Bearer pat_MQ.guess'), 401)
    await expectStatus(getProfile(client, 'Basic dXNlcjpwYXNz'), 401)
    assertThrottled(assert, await getProfile(client, 'Bearer pat_MQ.guess'))
    // A signed-in user is counted in a bucket of their own.
    await expectStatus(getProfile(client, bearer), 200)
  })
})
