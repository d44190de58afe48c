import { test } from '@japa/runner'
import type { Assert } from '@japa/assert'
import type { ApiResponse } from '@japa/api-client'
import { liftLimit } from '#tests/helpers/limits'
import { setEnv } from '#tests/helpers/env'
import db from '@adonisjs/lucid/services/db'
import { advanceClock, resetState, setNow } from '#tests/helpers/database'
import {
  machineClientWithSecret,
  mappedClientOfKind,
  tokenRequest,
  whoAmI,
} from '#tests/helpers/machine'
import { signedInMember } from '#tests/helpers/portal'
import OauthClient from '#models/oauth_client'
import { hashClientSecret } from '#auth/oauth_client_secrets'
import { route } from '#tests/helpers/routes'

function grant(machine: { clientId: string; secret: string }, extra: Record<string, string> = {}) {
  return {
    grant_type: 'client_credentials',
    client_id: machine.clientId,
    client_secret: machine.secret,
    ...extra,
  }
}

function assertOAuthError(response: ApiResponse, assert: Assert, status: number, error: string) {
  response.assertStatus(status)
  assert.equal(response.body().error, error)
  assert.isString(response.body().error_description)
  assert.notProperty(response.body(), 'success')
  response.assertHeader('cache-control', 'no-store')
  response.assertHeader('pragma', 'no-cache')
}

test.group('POST /oauth/token', (group) => {
  group.each.setup(() => resetState())

  test('client_secret_post: 200 with token_type, expires_in and access_token only, not cacheable', async ({
    client,
    assert,
  }) => {
    const machine = await machineClientWithSecret(client)
    const response = await tokenRequest(client, grant(machine))
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store')
    response.assertHeader('pragma', 'no-cache')
    const body = response.body()
    assert.sameMembers(Object.keys(body), ['token_type', 'expires_in', 'access_token'])
    assert.equal(body.token_type, 'Bearer')
    assert.equal(body.expires_in, 3600)
    assert.match(body.access_token, /^mat_/)
    const stored = await db.from('oauth_access_tokens').first()
    assert.notInclude(JSON.stringify(stored), body.access_token.split('.')[1])
    assert.deepEqual(JSON.parse(stored.abilities), ['merchant-api'])
  })

  test('client_secret_basic: 200', async ({ client, assert }) => {
    const machine = await machineClientWithSecret(client)
    const response = await tokenRequest(
      client,
      { grant_type: 'client_credentials' },
      { id: machine.clientId, secret: machine.secret }
    )
    response.assertStatus(200)
    assert.equal(response.body().token_type, 'Bearer')
  })

  test('Basic credentials are form-urldecoded after base64 (RFC 6749 §2.3.1)', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('oauthToken'))
    const machine = await machineClientWithSecret(client)
    const basic = (id: string, secret: string) =>
      client
        .post(route('oauth.token'))
        .header('Authorization', `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`)
        .form({ grant_type: 'client_credentials' })
    // Every character percent-encoded, as a client may do (application/x-www-form-urlencoded).
    const percentEncode = (value: string) =>
      [...Buffer.from(value, 'utf8')]
        .map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
        .join('')
    const encoded = await basic(percentEncode(machine.clientId), percentEncode(machine.secret))
    encoded.assertStatus(200)
    assert.equal(encoded.body().token_type, 'Bearer')
    // Decoded, a `+` is a space: the secret no longer matches.
    const plus = await basic(machine.clientId, `${machine.secret}+`)
    assertOAuthError(plus, assert, 401, 'invalid_client')
    const broken = await basic(machine.clientId, `${machine.secret}%zz`)
    assertOAuthError(broken, assert, 401, 'invalid_client')
    broken.assertHeader('www-authenticate', 'Basic realm="oauth"')
  })

  test('credentials in both the form and Basic: invalid_request', async ({ client, assert }) => {
    const machine = await machineClientWithSecret(client)
    const forms: Array<Record<string, string>> = [
      grant(machine),
      { grant_type: 'client_credentials', client_id: machine.clientId },
      { grant_type: 'client_credentials', client_secret: machine.secret },
    ]
    for (const form of forms) {
      const response = await tokenRequest(client, form, {
        id: machine.clientId,
        secret: machine.secret,
      })
      assertOAuthError(response, assert, 400, 'invalid_request')
    }
  })

  test('grant_type: missing or repeated is invalid_request; anything else unsupported_grant_type', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('oauthToken'))
    const machine = await machineClientWithSecret(client)
    const missing = await tokenRequest(client, {
      client_id: machine.clientId,
      client_secret: machine.secret,
    })
    assertOAuthError(missing, assert, 400, 'invalid_request')
    for (const grantType of [
      'password',
      'authorization_code',
      'refresh_token',
      'CLIENT_CREDENTIALS',
    ]) {
      const response = await tokenRequest(client, grant(machine, { grant_type: grantType }))
      assertOAuthError(response, assert, 400, 'unsupported_grant_type')
    }
    const repeated = await client
      .post(route('oauth.token'))
      .type('application/x-www-form-urlencoded')
      .form(
        `grant_type=client_credentials&grant_type=client_credentials&client_id=${machine.clientId}&client_secret=${machine.secret}`
      )
    assertOAuthError(repeated, assert, 400, 'invalid_request')
  })

  test('every form parameter is read: a repeat or a second credential past the 1,000th is still invalid_request', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('oauthToken'))
    const machine = await machineClientWithSecret(client)
    const filler = Array.from({ length: 1000 }, (_, index) => `p${index}=1`).join('&')
    const basic = `Basic ${Buffer.from(`${machine.clientId}:${machine.secret}`).toString('base64')}`
    const repeatedGrant = await client
      .post(route('oauth.token'))
      .type('application/x-www-form-urlencoded')
      .form(
        `grant_type=client_credentials&client_id=${machine.clientId}&client_secret=${machine.secret}&${filler}&grant_type=password`
      )
    assertOAuthError(repeatedGrant, assert, 400, 'invalid_request')
    const secondCredential = await client
      .post(route('oauth.token'))
      .header('Authorization', basic)
      .type('application/x-www-form-urlencoded')
      .form(`grant_type=client_credentials&${filler}&client_id=${machine.clientId}`)
    assertOAuthError(secondCredential, assert, 400, 'invalid_request')
  })

  test('a JSON body is invalid_request; malformed bodies never cause a 500', async ({
    client,
    assert,
  }) => {
    const machine = await machineClientWithSecret(client)
    const json = await client.post(route('oauth.token')).json(grant(machine))
    assertOAuthError(json, assert, 400, 'invalid_request')
    const huge = await client
      .post(route('oauth.token'))
      .type('application/x-www-form-urlencoded')
      .form(`grant_type=client_credentials&pad=${'x'.repeat(200_000)}`)
    assert.equal(huge.body().error, 'invalid_request')
    const broken = await client
      .post(route('oauth.token'))
      .type('application/x-www-form-urlencoded')
      .form('grant_type=client_credentials&client_id=%E0%A4%A&client_secret=%%')
    assert.isBelow(broken.status(), 500)
    assert.property(broken.body(), 'error')
  })

  test('wrong secret, unknown client, malformed id: 401 invalid_client; WWW-Authenticate only with Basic', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('oauthToken'))
    const machine = await machineClientWithSecret(client)
    const cases: Array<Record<string, string>> = [
      grant(machine, { client_secret: `${machine.secret}x` }),
      grant(machine, { client_secret: machine.secret.slice(0, -1) }),
      grant(machine, { client_secret: '' }),
      grant(machine, { client_id: '999999' }),
      grant(machine, { client_id: 'abc' }),
      grant(machine, { client_id: '0' }),
      grant(machine, { client_id: '99999999999999999999999' }),
      grant(machine, { client_secret: 's'.repeat(10_000) }),
      { grant_type: 'client_credentials', client_id: machine.clientId },
      { grant_type: 'client_credentials' },
    ]
    for (const form of cases) {
      const response = await tokenRequest(client, form)
      assertOAuthError(response, assert, 401, 'invalid_client')
      assert.isUndefined(response.header('www-authenticate'))
    }
    const basic = await tokenRequest(
      client,
      { grant_type: 'client_credentials' },
      { id: machine.clientId, secret: 'wrong-secret' }
    )
    assertOAuthError(basic, assert, 401, 'invalid_client')
    basic.assertHeader('www-authenticate', 'Basic realm="oauth"')
    const malformedBasic = await client
      .post(route('oauth.token'))
      .header('Authorization', 'Basic !!!notbase64')
      .form({ grant_type: 'client_credentials' })
    assertOAuthError(malformedBasic, assert, 401, 'invalid_client')
    malformedBasic.assertHeader('www-authenticate', 'Basic realm="oauth"')
  })

  test('revoked clients and non-machine clients (framework, personal-access, ecosystem): invalid_client', async ({
    client,
    assert,
  }) => {
    const machine = await machineClientWithSecret(client)
    await db.from('oauth_clients').where('id', machine.clientId).update({ revoked_at: new Date() })
    assertOAuthError(await tokenRequest(client, grant(machine)), assert, 401, 'invalid_client')

    const admin = await signedInMember('administrator')
    for (const kind of ['framework', 'personal_access', 'ecosystem'] as const) {
      const mapping = await mappedClientOfKind(admin.merchant.id, kind)
      await OauthClient.query()
        .where('id', mapping.oauthClientId)
        .update({ secret_hash: hashClientSecret('known-secret') })
      const response = await tokenRequest(client, {
        grant_type: 'client_credentials',
        client_id: String(mapping.oauthClientId),
        client_secret: 'known-secret',
      })
      assertOAuthError(response, assert, 401, 'invalid_client')
    }
  })

  test('scope: omitted gives the default, empty gives none, unknown is invalid_scope', async ({
    client,
    assert,
  }) => {
    const machine = await machineClientWithSecret(client)
    const explicit = await tokenRequest(client, grant(machine, { scope: 'merchant-api' }))
    explicit.assertStatus(200)
    const empty = await tokenRequest(client, grant(machine, { scope: '' }))
    empty.assertStatus(200)
    const whoami = await whoAmI(client, empty.body().access_token)
    whoami.assertStatus(403)
    assert.equal(whoami.body().error_code, 'INSUFFICIENT_SCOPE')
    for (const scope of [
      'admin',
      'merchant-api admin',
      'merchant-api  merchant-api',
      'MERCHANT-API',
    ]) {
      const response = await tokenRequest(client, grant(machine, { scope }))
      assertOAuthError(response, assert, 400, 'invalid_scope')
    }
  })

  test('username, password, user tokens, the application header and unrelated parameters are not used', async ({
    client,
  }) => {
    const machine = await machineClientWithSecret(client)
    const response = await tokenRequest(
      client,
      grant(machine, { username: 'someone', password: 'whatever', audience: 'x', state: 'y' })
    ).header('X-Service-Application', 'merchant_portal')
    response.assertStatus(200)
    const withPat = await tokenRequest(client, grant(machine)).header(
      'Authorization',
      machine.admin.bearer
    )
    withPat.assertStatus(200)
  })

  test('lifetime comes from MACHINE_TOKEN_TTL_SECONDS at request time; the token expires then', async ({
    client,
    assert,
    cleanup,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const machine = await machineClientWithSecret(client)
    cleanup(setEnv('MACHINE_TOKEN_TTL_SECONDS', '120'))
    const response = await tokenRequest(client, grant(machine))
    assert.equal(response.body().expires_in, 120)
    const token = response.body().access_token
    advanceClock(119_000)
    const valid = await whoAmI(client, token)
    valid.assertStatus(200)
    advanceClock(1_000)
    const expired = await whoAmI(client, token)
    expired.assertStatus(401)
    assert.equal(expired.body().error_code, 'ACCESS_TOKEN_INVALID')
  })

  test('a client past its rotation deadline, or of an inactive merchant, still gets a token', async ({
    client,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const machine = await machineClientWithSecret(client)
    await db
      .from('merchant_oauth_clients')
      .where('id', machine.ownershipId)
      .update({ rotation_deadline_at: new Date('2026-03-01T09:00:00Z') })
    const pastDeadline = await tokenRequest(client, grant(machine))
    pastDeadline.assertStatus(200)
    await db
      .from('merchant_oauth_clients')
      .where('id', machine.ownershipId)
      .update({ rotation_deadline_at: null })
    await db.from('merchants').where('id', machine.admin.merchant.id).update({ is_active: false })
    const inactiveMerchant = await tokenRequest(client, grant(machine))
    inactiveMerchant.assertStatus(200)
  })

  test('its own throttle answers 429 in OAuth form with Retry-After', async ({
    client,
    assert,
  }) => {
    const machine = await machineClientWithSecret(client)
    const statuses: number[] = []
    for (let i = 0; i < 31; i++) {
      const response = await tokenRequest(client, grant(machine))
      statuses.push(response.status())
      if (response.status() === 429) {
        assert.equal(response.body().error, 'rate_limited')
        assert.notProperty(response.body(), 'success')
        assert.isAbove(Number(response.header('retry-after')), 0)
      }
    }
    assert.deepEqual(statuses.slice(0, 30), Array(30).fill(200))
    assert.equal(statuses[30], 429)
  })
})
