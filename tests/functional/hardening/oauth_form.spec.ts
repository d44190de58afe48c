/*
| /oauth/token check order and error form (issue 9 › 11; RFC 6749 §5.2): the client
| is authenticated before its scope is judged, and every failure on the endpoint —
| another method, an unreachable database or limiter store — is in OAuth form.
*/
import { test } from '@japa/runner'
import type { Assert } from '@japa/assert'
import { setTimeout as sleep } from 'node:timers/promises'
import { resetState } from '#tests/helpers/database'
import { whileDatabaseUnreachable } from '#tests/helpers/outages'
import { route } from '#tests/helpers/routes'
import { machineClientWithSecret, tokenRequest } from '#tests/helpers/machine'
import { READY_MS } from '#tests/helpers/server_process'

function assertOAuthForm(assert: Assert, body: unknown, error: string) {
  assert.deepEqual(Object.keys(body as object).sort(), ['error', 'error_description'])
  assert.equal((body as { error: string }).error, error)
}

test.group('/oauth/token: order and form (issue 9 › 11)', (group) => {
  group.each.setup(() => resetState())

  test('an unknown scope from an unauthenticated caller is invalid_client, not invalid_scope', async ({
    client,
    assert,
  }) => {
    const { clientId, secret } = await machineClientWithSecret(client)
    const attempts: Array<Record<string, string>> = [
      { client_id: clientId, client_secret: 'wrong-secret' },
      { client_id: '999999', client_secret: 'whatever' },
      {},
    ]
    for (const credentials of attempts) {
      const response = await tokenRequest(client, {
        grant_type: 'client_credentials',
        scope: 'no-such-scope',
        ...credentials,
      })
      response.assertStatus(401)
      assertOAuthForm(assert, response.body(), 'invalid_client')
    }
    const authenticated = await tokenRequest(client, {
      grant_type: 'client_credentials',
      scope: 'no-such-scope',
      client_id: clientId,
      client_secret: secret,
    })
    authenticated.assertStatus(400)
    assertOAuthForm(assert, authenticated.body(), 'invalid_scope')
  })

  test('methods other than POST: 405 in OAuth form with Allow: POST', async ({
    client,
    assert,
  }) => {
    for (const method of ['get', 'put', 'patch', 'delete'] as const) {
      const response = await client[method]('/oauth/token')
      response.assertStatus(405)
      assertOAuthForm(assert, response.body(), 'invalid_request')
      assert.include(response.header('allow') ?? '', 'POST')
      response.assertHeader('cache-control', 'no-store')
    }
  })

  test('an unreachable database (limiter store included): 503 in OAuth form', async ({
    client,
    assert,
  }) => {
    await whileDatabaseUnreachable(async () => {
      const response = await tokenRequest(client, {
        grant_type: 'client_credentials',
        client_id: '1',
        client_secret: 'x',
      })
      response.assertStatus(503)
      assertOAuthForm(assert, response.body(), 'temporarily_unavailable')
      assert.notMatch(response.text(), /postgres|knex|connection|\.ts:\d+/i)
    })
    // The service recovers by itself, but a request right after the outage can still
    // meet a pooled connection it ended and answer 503 (seen once in CI, in the next
    // file): the next test starts once an ordinary request answers again.
    let recovered = false
    const giveUpAt = Date.now() + READY_MS
    while (!recovered && Date.now() < giveUpAt) {
      const probe = await client.get(route('profile.show'))
      recovered = probe.status() === 401
      if (!recovered) await sleep(100)
    }
    assert.isTrue(recovered, 'the service answers again once the database is back')
  }).timeout(180_000)
})
