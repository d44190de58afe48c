/*
| Hostile input never produces a 500 (issue 9 › 1, 2, 3, 12): a deeply nested JSON
| body, an X-Request-Id that does not fit the audit record, an object as merchant
| selector, and a path that is not valid percent-encoding.
*/
import http from 'node:http'
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { auditRows, uniqueLabel } from '#tests/helpers/machine'
import { liftLimit, setLimit } from '#tests/helpers/limits'
import { MAX_BODY_DEPTH } from '#validators/rules/body_depth'
import { route } from '#tests/helpers/routes'

/** One raw HTTP request to the test server: the path is sent byte for byte. */
function rawRequest(method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const request = http.request(
        {
          host: process.env.HOST ?? '127.0.0.1',
          port: Number(process.env.PORT),
          method,
          path,
          headers,
        },
        (response) => {
          let body = ''
          response.setEncoding('utf8')
          response.on('data', (chunk) => (body += chunk))
          response.on('end', () =>
            resolve({ status: response.statusCode!, headers: response.headers, body })
          )
        }
      )
      request.on('error', reject)
      request.end()
    }
  )
}

function nested(depth: number) {
  return `{"email":${'['.repeat(depth)}${']'.repeat(depth)}}`
}

test.group('Deep JSON (issue 9 › 1)', (group) => {
  group.each.setup(() => resetState())

  test('a body nested 3000 levels deep is a 422 on body, unauthenticated and authenticated', async ({
    client,
    assert,
  }) => {
    const reset = await client.post(route('auth.reset_link')).json(JSON.parse(nested(3000)))
    reset.assertStatus(422)
    assert.equal(reset.body().error_code, 'VALIDATION_ERROR')
    assert.include(Object.keys(reset.body().errors), 'body', JSON.stringify(reset.body()))

    const { bearer } = await signedInMember()
    const patch = await client
      .patch(route('profile.update'))
      .header('Authorization', bearer)
      .json(JSON.parse(`{"first_name":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`))
    patch.assertStatus(422)
    assert.include(Object.keys(patch.body().errors), 'body')
  })

  test('nesting up to the bound is judged by the endpoint as usual', async ({ client, assert }) => {
    const response = await client
      .post(route('auth.reset_link'))
      .json(JSON.parse(nested(MAX_BODY_DEPTH - 1)))
    response.assertStatus(422)
    assert.property(response.body().errors, 'email')
  })
})

test.group('X-Request-Id (issue 9 › 2)', (group) => {
  group.each.setup(() => resetState())

  test('a 65-character request id on an audited refusal: 422, the audit record is written with a generated id', async ({
    client,
    assert,
  }) => {
    const session = await signedInMember()
    const longId = 'r'.repeat(65)
    const response = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', session.bearer)
      .header('X-Request-Id', longId)
      .json({ label: uniqueLabel(), reason: 'A reason long enough', current_password: 'wrong' })
    response.assertStatus(422)
    assert.property(response.body().errors, 'current_password')
    const generated = response.header('x-request-id')
    assert.notEqual(generated, longId)
    assert.match(generated ?? '', /^[A-Za-z0-9._-]{1,64}$/)
    const rows = await auditRows()
    assert.isAbove(rows.length, 0)
    assert.isTrue(rows.every((row: { request_id: string }) => row.request_id === generated))
  })

  test('the response’s id is the service’s own, whatever the client sent (issue 38 › 4)', async ({
    client,
    assert,
  }) => {
    for (const sent of [
      'abc.DEF_123-x',
      'a'.repeat(65),
      'has space',
      'semi;colon',
      'é',
      '{"x":1}',
    ]) {
      const response = await client.get(route('health.live')).header('X-Request-Id', sent)
      response.assertStatus(200)
      assert.notEqual(response.header('x-request-id'), sent)
      assert.match(response.header('x-request-id') ?? '', /^[A-Za-z0-9._-]{1,64}$/)
    }
  })

  test('a throttled audited mutation with a long request id stays a 429', async ({
    client,
    assert,
  }) => {
    const session = await signedInMember()
    const restore = setLimit('machineClientMutation', 1)
    try {
      const body = { label: uniqueLabel(), reason: 'A reason long enough', current_password: 'x' }
      const statuses: number[] = []
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await client
          .post(route('merchant.machine_clients.store'))
          .header('Authorization', session.bearer)
          .header('X-Request-Id', 'z'.repeat(200))
          .json(body)
        statuses.push(response.status())
      }
      assert.deepEqual(statuses, [422, 429, 429])
      const rows = await auditRows('machine_client.issue')
      const throttled = rows.filter((row: { outcome: string }) => row.outcome === 'throttled')
      assert.lengthOf(throttled, 1)
    } finally {
      restore()
    }
  })

  test('wrong acceptance passwords with a long request id are still counted (the lockout triggers)', async ({
    client,
    assert,
  }) => {
    const { createInvitation } = await import('#tests/helpers/team')
    const { appHeaders } = await import('#tests/helpers/portal')
    const { UserFactory } = await import('#database/factories/user_factory')
    const { ROLES } = await import('#models/user')
    const restore = liftLimit('invitationAcceptance')
    const restoreIp = liftLimit('invitationAcceptanceIp')
    try {
      const team = await signedInMember('administrator')
      const { invitation, proof } = await createInvitation(team.merchant, team.user)
      await UserFactory.merge({
        merchantId: null,
        isActive: false,
        role: ROLES.developer,
        email: invitation.email,
        username: invitation.email,
      }).create()
      const statuses: number[] = []
      for (let attempt = 0; attempt < 11; attempt++) {
        const response = await client
          .post(route('team.invitations.accept'))
          .headers(appHeaders(team.client))
          .header('X-Request-Id', 'q'.repeat(65))
          .json({ token: proof, current_password: 'Wrong-Passw0rd!' })
        statuses.push(response.status())
      }
      assert.deepEqual(statuses, [...Array(10).fill(422), 410])
      const row = await db.from('team_invitations').where('id', invitation.id).first()
      assert.equal(row.failed_attempts, 10)
    } finally {
      restore()
      restoreIp()
    }
  })
})

test.group('Merchant selector (issue 9 › 3)', (group) => {
  group.each.setup(() => resetState())

  test('an object, array or null as merchant selector is a 422 field error, never a 500', async ({
    client,
    assert,
    cleanup,
  }) => {
    // Refused requests consume the profile update limit too; this test sends more.
    cleanup(liftLimit('profileUpdate'))
    const { bearer } = await signedInMember()
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ merchant: { id: { toString: 1 } } }, 'merchant.id'],
      [{ merchant: { id: [1] } }, 'merchant.id'],
      [{ merchant_id: { valueOf: 1 } }, 'merchant_id.id'],
      [{ merchant_id: [1, 2] }, 'merchant_id'],
      [{ merchant_reference_id: null }, 'merchant_reference_id'],
      [{ merchant: true }, 'merchant'],
    ]
    for (const [body, field] of cases) {
      const response = await client
        .patch(route('profile.update'))
        .header('Authorization', bearer)
        .json(body)
      response.assertStatus(422)
      assert.include(Object.keys(response.body().errors), field, JSON.stringify(body))
    }
    const query = await client
      .get(`${route('profile.show')}?merchant_id=1&merchant_id=2`)
      .header('Authorization', bearer)
    query.assertStatus(422)
    const nestedQuery = await client
      .get(`${route('profile.show')}?merchant[id][x]=1`)
      .header('Authorization', bearer)
    nestedQuery.assertStatus(422)
  })

  test('a string or number naming another merchant is still 403 MERCHANT_SCOPE_MISMATCH', async ({
    client,
    assert,
  }) => {
    const { bearer, merchant } = await signedInMember()
    for (const body of [
      { merchant_id: merchant.id + 1 },
      { merchant: { id: String(merchant.id + 1) } },
    ]) {
      const response = await client
        .patch(route('profile.update'))
        .header('Authorization', bearer)
        .json(body)
      response.assertStatus(403)
      assert.equal(response.body().error_code, 'MERCHANT_SCOPE_MISMATCH')
    }
  })
})

test.group('Malformed percent-encoding in a path (issue 9 › 12)', () => {
  test('is 404 NOT_FOUND in the JSON envelope with Cache-Control: no-store', async ({ assert }) => {
    for (const path of [
      '/api/v1/portal/team/members/%zz/role',
      '/%C0%AF',
      '/%',
      '/api/v1/portal/me/%E0%A4%A',
      '/oauth/token%ff',
    ]) {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const response = await rawRequest(method, path)
        assert.equal(response.status, 404, `${method} ${path}`)
        assert.match(String(response.headers['content-type']), /^application\/json/)
        assert.equal(response.headers['cache-control'], 'no-store')
        assert.deepEqual(JSON.parse(response.body), {
          success: false,
          message: 'The requested resource was not found.',
          error_code: 'NOT_FOUND',
        })
      }
    }
  })
})

test.group('Plain-text refusals of third-party handlers', () => {
  test("drive's own file server is not mounted: its signed-URL path answers the JSON 404 envelope, never text/plain", async ({
    client,
    assert,
  }) => {
    // Logos are served by the service's own media route (docs/merchant.md); drive's
    // file server, which refused a bad signature with a plain-text 401, is not mounted.
    const response = await client.get('/uploads/merchants/1/logo.png?signature=forged')
    response.assertStatus(404)
    assert.deepEqual(response.body(), {
      success: false,
      message: 'The requested resource was not found.',
      error_code: 'NOT_FOUND',
    })
    response.assertHeader('cache-control', 'no-store')
  })
})
