import { test } from '@japa/runner'
import { setEnv } from '#tests/helpers/env'
import db from '@adonisjs/lucid/services/db'
import { advanceClock, resetState, setNow } from '#tests/helpers/database'
import OauthClient from '#models/oauth_client'
import { machineClientWithSecret, machineToken, whoAmI } from '#tests/helpers/machine'
import { basicAuthorization, teammate } from '#tests/helpers/portal'
import { route } from '#tests/helpers/routes'

async function ownershipLastUsed(id: number) {
  const row = await db.from('merchant_oauth_clients').where('id', id).first()
  return row.last_used_at ? (row.last_used_at as Date).toISOString() : null
}

test.group('Machine-token authentication (GET /api/v1/merchant-api/whoami)', (group) => {
  group.each.setup(() => resetState())

  test('returns the authenticated client merchant reference and scopes', async ({
    client,
    assert,
  }) => {
    const machine = await machineClientWithSecret(client)
    const token = await machineToken(client, machine)
    const response = await whoAmI(client, token)
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store')
    const data = response.body().data
    assert.equal(data.merchant_reference_id, machine.admin.merchant.referenceId)
    assert.equal(data.oauth_client_id, Number(machine.clientId))
    assert.deepEqual(data.scopes, ['merchant-api'])
    assert.notInclude(JSON.stringify(response.body()), token)
  })

  test('no token: 401 UNAUTHENTICATED; malformed, unknown or tampered token: 401 ACCESS_TOKEN_INVALID', async ({
    client,
    assert,
  }) => {
    const machine = await machineClientWithSecret(client)
    const token = await machineToken(client, machine)
    // No bearer token at all: no header, or only another scheme (decisions.md §1).
    for (const header of [
      undefined,
      `Basic ${Buffer.from(`${machine.clientId}:${machine.secret}`).toString('base64')}`,
      `Basic ${token}`,
    ]) {
      const request = client.get(route('merchant_api.whoami'))
      const none = await (header === undefined ? request : request.header('Authorization', header))
      none.assertStatus(401)
      assert.equal(none.body().error_code, 'UNAUTHENTICATED', header)
      none.assertHeader('www-authenticate', 'Bearer realm="merchant-api"')
    }
    for (const header of [
      'Bearer',
      'Bearer garbage',
      `Bearer ${token}, Basic ${Buffer.from(`${machine.clientId}:${machine.secret}`).toString('base64')}`,
      `Bearer ${token}x`,
      `Bearer ${token.replace(/^mat_/, 'pat_')}`,
      `bearer  ${token}`,
    ]) {
      const response = await client
        .get(route('merchant_api.whoami'))
        .header('Authorization', header)
      response.assertStatus(401)
      assert.equal(response.body().error_code, 'ACCESS_TOKEN_INVALID')
      response.assertHeader(
        'www-authenticate',
        'Bearer realm="merchant-api", error="invalid_token"'
      )
    }
  })

  test('the Bearer scheme name is case-insensitive (RFC 7235)', async ({ client }) => {
    const machine = await machineClientWithSecret(client)
    const token = await machineToken(client, machine)
    for (const scheme of ['bearer', 'BEARER']) {
      const response = await client
        .get(route('merchant_api.whoami'))
        .header('Authorization', `${scheme} ${token}`)
      response.assertStatus(200)
    }
  })

  test('a database outage while verifying the token is 503, not 401', async ({
    client,
    assert,
    cleanup,
  }) => {
    const machine = await machineClientWithSecret(client)
    const token = await machineToken(client, machine)
    const provider = OauthClient.accessTokens
    const original = provider.verify
    provider.verify = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
        code: 'ECONNREFUSED',
      })
    }
    cleanup(() => {
      provider.verify = original
    })
    const response = await whoAmI(client, token)
    response.assertStatus(503)
    assert.equal(response.body().error_code, 'SERVICE_UNAVAILABLE')
  })

  test('a Portal PAT is rejected on the machine route, and a machine token on Portal routes', async ({
    client,
    assert,
  }) => {
    const machine = await machineClientWithSecret(client)
    const token = await machineToken(client, machine)
    const pat = await client
      .get(route('merchant_api.whoami'))
      .header('Authorization', machine.admin.bearer)
    pat.assertStatus(401)
    for (const [method, path] of [
      ['get', route('profile.show')],
      ['get', route('merchant.machine_clients.index')],
      ['post', route('merchant.machine_clients.store')],
      ['post', route('auth.logout')],
    ] as const) {
      const response = await client[method](path).bearerToken(token)
      response.assertStatus(401)
      assert.equal(response.body().error_code, 'ACCESS_TOKEN_INVALID')
      response.assertHeader('www-authenticate', 'Bearer realm="portal", error="invalid_token"')
    }
  })

  test('machine client credentials do not authenticate the Portal application (rule 7)', async ({
    client,
    assert,
  }) => {
    const machine = await machineClientWithSecret(client)
    const response = await client
      .post(route('auth.login'))
      .header('Authorization', basicAuthorization(machine.clientId, machine.secret))
      .header('X-Service-Application', 'merchant_portal')
      .json({ username: machine.admin.user.email, password: machine.admin.password })
    response.assertStatus(401)
    assert.equal(response.body().error_code, 'ECOSYSTEM_CLIENT_UNAUTHENTICATED')
  })

  test('MACHINE_API_ENABLED=false: 503 MERCHANT_MACHINE_API_UNAVAILABLE, read at request time', async ({
    client,
    assert,
    cleanup,
  }) => {
    const machine = await machineClientWithSecret(client)
    const token = await machineToken(client, machine)
    cleanup(setEnv('MACHINE_API_ENABLED', 'false'))
    const disabled = await whoAmI(client, token)
    disabled.assertStatus(503)
    assert.equal(disabled.body().error_code, 'MERCHANT_MACHINE_API_UNAVAILABLE')
    setEnv('MACHINE_API_ENABLED', 'true')
    const enabled = await whoAmI(client, token)
    enabled.assertStatus(200)
  })

  test('ownership inactive, merchant inactive, client revoked directly or deadline passed: 403 CLIENT_MERCHANT_NOT_AUTHORIZED', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const machine = await machineClientWithSecret(client)
    const token = await machineToken(client, machine)
    const expectForbidden = async () => {
      const response = await whoAmI(client, token)
      response.assertStatus(403)
      assert.equal(response.body().error_code, 'CLIENT_MERCHANT_NOT_AUTHORIZED')
    }
    const ownership = db.from('merchant_oauth_clients').where('id', machine.ownershipId)

    await ownership.clone().update({ is_active: false })
    await expectForbidden()
    await ownership.clone().update({ is_active: true })

    await db.from('merchants').where('id', machine.admin.merchant.id).update({ is_active: false })
    await expectForbidden()
    await db.from('merchants').where('id', machine.admin.merchant.id).update({ is_active: true })

    await ownership.clone().update({ rotation_deadline_at: new Date('2026-03-01T10:00:00Z') })
    await expectForbidden()
    await ownership.clone().update({ rotation_deadline_at: new Date('2026-03-01T10:00:01Z') })
    const beforeDeadline = await whoAmI(client, token)
    beforeDeadline.assertStatus(200)
    await ownership.clone().update({ rotation_deadline_at: null })

    await db.from('oauth_clients').where('id', machine.clientId).update({ revoked_at: new Date() })
    await expectForbidden()
  })

  test('refused requests consume the API-wide limit: per IP without a valid token, per client with one', async ({
    client,
    assert,
    cleanup,
  }) => {
    const machine = await machineClientWithSecret(client)
    const token = await machineToken(client, machine)
    cleanup(setEnv('RATE_LIMIT_API_PER_MINUTE', 2))
    // A verified client refused with 403 still counts in its own bucket.
    await db
      .from('merchant_oauth_clients')
      .where('id', machine.ownershipId)
      .update({ is_active: false })
    for (let index = 0; index < 2; index++) {
      const refused = await whoAmI(client, token)
      refused.assertStatus(403)
    }
    await db
      .from('merchant_oauth_clients')
      .where('id', machine.ownershipId)
      .update({ is_active: true })
    const throttled = await whoAmI(client, token)
    throttled.assertStatus(429)
    assert.equal(throttled.body().error_code, 'RATE_LIMITED')
    // Requests without a valid token count against their IP.
    for (let index = 0; index < 2; index++) {
      const anonymous = await client
        .get(route('merchant_api.whoami'))
        .header('Authorization', 'Bearer mat_xx.yy')
      anonymous.assertStatus(401)
    }
    const anonymousThrottled = await client.get(route('merchant_api.whoami'))
    anonymousThrottled.assertStatus(429)
  })

  test('last_used_at is written on use, at most once a minute', async ({ client, assert }) => {
    setNow('2026-03-01T10:00:00Z')
    const machine = await machineClientWithSecret(client)
    const token = await machineToken(client, machine)
    assert.isNull(await ownershipLastUsed(machine.ownershipId))
    await whoAmI(client, token)
    assert.equal(await ownershipLastUsed(machine.ownershipId), '2026-03-01T10:00:00.000Z')
    advanceClock(30_000)
    await whoAmI(client, token)
    assert.equal(await ownershipLastUsed(machine.ownershipId), '2026-03-01T10:00:00.000Z')
    advanceClock(31_000)
    await whoAmI(client, token)
    assert.equal(await ownershipLastUsed(machine.ownershipId), '2026-03-01T10:01:01.000Z')

    const developer = await teammate(machine.admin, 'developer')
    const list = await client
      .get(route('merchant.machine_clients.index'))
      .header('Authorization', developer.bearer)
    assert.equal(list.body().data[0].last_used_at, '2026-03-01T10:01:01.000Z')
  })
})
