/*
| The error contract (decisions.md §1): unknown routes and methods as JSON, malformed
| and non-object bodies as 422, oversize bodies as 413, never a stack or internals.
*/
import { test } from '@japa/runner'
import { resetState } from '#tests/helpers/database'
import { appHeaders, createPortalClient, signedInMember } from '#tests/helpers/portal'
import { ERROR_ENVELOPE_KEYS } from '#tests/helpers/foundation'
import type { ApiResponse } from '@japa/api-client'
import type { Assert } from '@japa/assert'
import { route } from '#tests/helpers/routes'
import { portalLogin } from '#tests/helpers/requests'
import { serverOrigin } from '#tests/helpers/test_server'

/** The body is the error envelope and nothing else (no stack, SQL, or paths). */
function assertEnvelope(assert: Assert, response: ApiResponse, status: number, code: string) {
  assert.equal(response.status(), status)
  assert.match(response.header('content-type') ?? '', /^application\/json/)
  const body = response.body()
  assert.isFalse(body.success)
  assert.equal(body.error_code, code)
  assert.isString(body.message)
  assert.includeMembers(ERROR_ENVELOPE_KEYS, Object.keys(body))
  assert.notMatch(response.text(), /node_modules|at \w+ \(|\.ts:\d+|Error:/)
}

test.group('Error contract', (group) => {
  group.each.setup(() => resetState())

  test('an unknown route is 404 NOT_FOUND as JSON', async ({ client, assert }) => {
    for (const path of ['/api/v1/nope', '/nope', '/api/v1/portal/me/extra', '/api/v2/portal/me']) {
      const response = await client.get(path).header('Accept', 'text/html')
      assertEnvelope(assert, response, 404, 'NOT_FOUND')
      assert.notProperty(response.body(), 'errors')
    }
    const withBody = await client.post('/api/v1/nope').json({ a: 1 })
    assertEnvelope(assert, withBody, 404, 'NOT_FOUND')
  })

  test('a known path with another method is 405 METHOD_NOT_ALLOWED with an Allow header', async ({
    client,
    assert,
  }) => {
    const login = await client.get('/api/v1/auth/login')
    assertEnvelope(assert, login, 405, 'METHOD_NOT_ALLOWED')
    assert.equal(login.header('allow'), 'POST')

    const me = await client.delete('/api/v1/portal/me')
    assertEnvelope(assert, me, 405, 'METHOD_NOT_ALLOWED')
    assert.include((me.header('allow') ?? '').split(', '), 'GET')
  })

  test('malformed JSON is 422 VALIDATION_ERROR', async ({ client, assert }) => {
    const app = await createPortalClient()
    for (const raw of ['{"username": "a", ', '{username: a}', "{'a': 1}", '{"a":1}}']) {
      const request = client.post(route('auth.login')).headers(appHeaders(app)).type('json')
      request.request.send(raw)
      const response = await request
      assertEnvelope(assert, response, 422, 'VALIDATION_ERROR')
      assert.isNotEmpty(Object.keys(response.body().errors), raw)
    }
  })

  test('a JSON array or string body on login is 422 VALIDATION_ERROR', async ({
    client,
    assert,
  }) => {
    const app = await createPortalClient()
    for (const raw of ['[{"username":"a","password":"secret1"}]', '"username"', '42', 'null']) {
      const request = client.post(route('auth.login')).headers(appHeaders(app)).type('json')
      request.request.send(raw)
      const response = await request
      assertEnvelope(assert, response, 422, 'VALIDATION_ERROR')
      assert.isNotEmpty(Object.keys(response.body().errors ?? {}), raw)
    }
  })

  test('a body over the parser limit is 413 PAYLOAD_TOO_LARGE', async ({ client, assert }) => {
    const app = await createPortalClient()
    const response = await portalLogin(client, app, {
      username: 'someone',
      password: 'x'.repeat(70 * 1024),
    })
    assertEnvelope(assert, response, 413, 'PAYLOAD_TOO_LARGE')
  })

  test('an oversize body on a PAT route is 413 too', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    const response = await client
      .patch(route('profile.update'))
      .header('Authorization', bearer)
      .json({ padding: 'x'.repeat(70 * 1024) })
    assertEnvelope(assert, response, 413, 'PAYLOAD_TOO_LARGE')
  })

  test('a body in a content type the endpoint does not take is 415 UNSUPPORTED_MEDIA_TYPE', async ({
    assert,
  }) => {
    const app = await createPortalClient()
    for (const [type, payload] of [
      ['text/plain', '{"username":"someone","password":"secret123"}'],
      ['application/x-www-form-urlencoded', 'username=someone&password=secret123'],
      ['application/xml', '<login/>'],
    ]) {
      const response = await rawPost(
        route('auth.login'),
        { ...appHeaders(app), 'Content-Type': type },
        payload
      )
      assert.equal(response.status, 415)
      const body = (await response.json()) as Record<string, unknown>
      assert.equal(body.error_code, 'UNSUPPORTED_MEDIA_TYPE')
      assert.includeMembers(ERROR_ENVELOPE_KEYS, Object.keys(body))
    }
  })

  test('JSON with a charset parameter and bodiless calls are accepted', async ({ assert }) => {
    const app = await createPortalClient()
    const withCharset = await rawPost(
      route('auth.login'),
      { ...appHeaders(app), 'Content-Type': 'application/json; charset=utf-8' },
      '{"username":"nobody@example.test","password":"secret123"}'
    )
    assert.equal(withCharset.status, 401)
    const { bearer } = await signedInMember()
    const bodiless = await rawPost(route('auth.logout'), { Authorization: bearer })
    assert.equal(bodiless.status, 200)
  })

  test('logout ignores the fields of its JSON payload', async ({ assert }) => {
    const { bearer } = await signedInMember()
    const response = await rawPost(
      route('auth.logout'),
      { 'Authorization': bearer, 'Content-Type': 'application/json' },
      '{"everything":"ignored","token":"x"}'
    )
    assert.equal(response.status, 200)
  })

  test('logout ignores any payload, malformed or of another type, and still revokes the PAT', async ({
    assert,
  }) => {
    for (const [type, payload] of [
      ['application/json', '{"unterminated":'],
      ['text/plain', 'bye'],
      ['application/x-www-form-urlencoded', 'a=1'],
    ]) {
      const { bearer } = await signedInMember()
      const response = await rawPost(
        route('auth.logout'),
        { 'Authorization': bearer, 'Content-Type': type },
        payload
      )
      assert.equal(response.status, 200, type)
      const after = await fetch(`${serverOrigin()}${route('profile.show')}`, {
        headers: { Authorization: bearer },
      })
      assert.equal(after.status, 401, type)
    }
  })

  test('a Content-Encoding that is unknown is 415, a body that does not decompress is 422, never 500', async ({
    assert,
  }) => {
    const app = await createPortalClient()
    const json = '{"username":"nobody@example.test","password":"secret123"}'
    for (const [encoding, status, code] of [
      ['foo', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['gzip', 422, 'VALIDATION_ERROR'],
      ['deflate', 422, 'VALIDATION_ERROR'],
      ['br', 422, 'VALIDATION_ERROR'],
    ] as const) {
      const response = await rawPost(
        route('auth.login'),
        { ...appHeaders(app), 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        json
      )
      assert.equal(response.status, status, encoding)
      const body = (await response.json()) as Record<string, unknown>
      assert.equal(body.error_code, code, encoding)
    }
  })
})

/** A request with an exact body and content type (the api client always encodes). */
function rawPost(path: string, headers: Record<string, string>, body?: string) {
  return fetch(`${serverOrigin()}${path}`, { method: 'POST', headers, body })
}
