/*
| tests/helpers/openapi_contract.ts, the check every functional response goes
| through: what it must refuse (an undocumented status, field, error code, media
| type or required header) and what it must accept.
*/
import { test } from '@japa/runner'
import { openApiDocument } from '#openapi/document'
import { OpenApiContract, type ObservedResponse } from '#tests/helpers/openapi_contract'

const profile = {
  id: 1,
  reference_id: 'USR-1',
  first_name: 'Ada',
  last_name: 'Lovelace',
  username: 'ada',
  email: 'ada@example.test',
  pending_email: null,
  pending_email_expires_at: null,
  email_verified_at: '2026-03-01T00:00:00.000Z',
  role: 'administrator',
  is_active: true,
  merchant: { id: 1, reference_id: 'MER-1', name: 'Shop' },
}

function observed(overrides: Partial<ObservedResponse>): ObservedResponse {
  const body = overrides.body ?? { success: true, message: 'Success', data: profile }
  return {
    method: 'GET',
    path: '/api/v1/portal/me',
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    body,
    text: JSON.stringify(body),
    ...overrides,
  }
}

const error = (_status: number, code: string, extra: object = {}) => ({
  success: false,
  message: 'Refused.',
  error_code: code,
  ...extra,
})

test.group('OpenAPI response contract', (group) => {
  let contract: OpenApiContract
  group.setup(() => {
    contract = new OpenApiContract(openApiDocument().document)
  })

  test('a documented response passes', ({ assert }) => {
    assert.deepEqual(contract.check(observed({})), [])
  })

  test('an undocumented field fails', ({ assert }) => {
    const body = { success: true, message: 'Success', data: { ...profile, password_hash: 'x' } }
    const problems = contract.check(observed({ body }))
    assert.lengthOf(problems, 1)
    assert.match(problems[0], /additional properties.*password_hash/)
  })

  test('a missing or mistyped field fails', ({ assert }) => {
    const withoutRole: Record<string, unknown> = { ...profile }
    delete withoutRole.role
    assert.isNotEmpty(
      contract.check(observed({ body: { success: true, message: 'Success', data: withoutRole } }))
    )
    assert.isNotEmpty(
      contract.check(
        observed({ body: { success: true, message: 'Success', data: { ...profile, id: '1' } } })
      )
    )
    assert.isNotEmpty(
      contract.check(
        observed({
          body: {
            success: true,
            message: 'x',
            data: { ...profile, email_verified_at: '2026-03-01' },
          },
        })
      )
    )
  })

  test('an undocumented status fails', ({ assert }) => {
    const problems = contract.check(
      observed({
        status: 409,
        body: error(409, 'CONFLICT'),
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      })
    )
    assert.match(problems[0], /status 409 is not documented/)
  })

  test('an error code the operation does not list fails; a listed one passes', ({ assert }) => {
    const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' }
    assert.deepEqual(
      contract.check(observed({ status: 401, body: error(401, 'ACCESS_TOKEN_INVALID'), headers })),
      []
    )
    assert.isNotEmpty(
      contract.check(observed({ status: 401, body: error(401, 'INVALID_CREDENTIALS'), headers }))
    )
    // A developer-only refusal is documented on admin routes, not on GET /portal/me.
    assert.isNotEmpty(
      contract.check(observed({ status: 403, body: error(403, 'FORBIDDEN'), headers }))
    )
  })

  test('field errors appear on 422 only, and are required there', ({ assert }) => {
    const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' }
    const patch = { method: 'PATCH', headers }
    assert.deepEqual(
      contract.check(
        observed({
          ...patch,
          status: 422,
          body: error(422, 'VALIDATION_ERROR', {
            errors: { role: ['The role field is not allowed.'] },
          }),
        })
      ),
      []
    )
    assert.isNotEmpty(
      contract.check(observed({ ...patch, status: 422, body: error(422, 'VALIDATION_ERROR') }))
    )
    assert.isNotEmpty(
      contract.check(
        observed({
          status: 401,
          headers,
          body: error(401, 'UNAUTHENTICATED', { errors: { a: ['b'] } }),
        })
      )
    )
  })

  test('a 429 without Retry-After fails', ({ assert }) => {
    const body = error(429, 'RATE_LIMITED')
    const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' }
    assert.match(
      contract.check(observed({ status: 429, body, headers }))[0],
      /Retry-After is missing/
    )
    assert.deepEqual(
      contract.check(observed({ status: 429, body, headers: { ...headers, 'retry-after': '42' } })),
      []
    )
  })

  test('a documented Cache-Control value is enforced on success', ({ assert }) => {
    const problems = contract.check(
      observed({ headers: { 'content-type': 'application/json', 'cache-control': 'public' } })
    )
    assert.match(problems[0], /Cache-Control/)
  })

  test('a 204 must be empty', ({ assert }) => {
    const base = {
      method: 'DELETE',
      path: '/api/v1/portal/team/members/12',
      status: 204,
      headers: { 'cache-control': 'no-store, private' },
    }
    assert.deepEqual(contract.check(observed({ ...base, body: {}, text: '' })), [])
    assert.isNotEmpty(contract.check(observed({ ...base, body: {}, text: '{}' })))
  })

  test('route ids follow the documented shapes: a malformed id is an unknown path (404 NOT_FOUND)', ({
    assert,
  }) => {
    const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' }
    const notFound = { status: 404, headers, body: error(404, 'NOT_FOUND') }
    assert.deepEqual(
      contract.check(
        observed({ ...notFound, method: 'DELETE', path: '/api/v1/portal/team/members/01' })
      ),
      []
    )
    assert.deepEqual(contract.check(observed({ ...notFound, path: '/api/v1/nothing-here' })), [])
    assert.isNotEmpty(contract.check(observed({ status: 200, path: '/api/v1/nothing-here' })))
  })

  test('a known path with another method must be the generic 405 with Allow', ({ assert }) => {
    const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' }
    const body = error(405, 'METHOD_NOT_ALLOWED')
    const request = { method: 'DELETE', path: '/api/v1/portal/me', status: 405, body }
    assert.deepEqual(
      contract.check(observed({ ...request, headers: { ...headers, allow: 'GET, HEAD, PATCH' } })),
      []
    )
    assert.match(contract.check(observed({ ...request, headers }))[0], /without an Allow header/)
  })

  test('an undocumented media type fails', ({ assert }) => {
    const problems = contract.check(
      observed({ headers: { 'content-type': 'text/html', 'cache-control': 'no-store' } })
    )
    assert.match(problems[0], /media type text\/html is not documented/)
  })
})
