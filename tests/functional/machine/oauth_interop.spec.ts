import { test } from '@japa/runner'
import * as oauth from 'oauth4webapi'
import env from '#start/env'
import { resetState } from '#tests/helpers/database'
import { machineClientWithSecret } from '#tests/helpers/machine'
import { route } from '#tests/helpers/routes'

/** The test server's own address (the Japa API client talks to the same one). */
function baseUrl() {
  return `http://${env.get('HOST') ?? '127.0.0.1'}:${env.get('PORT') ?? 3333}`
}

const insecure = { [oauth.allowInsecureRequests]: true }

async function tokenThrough(
  authentication: 'client_secret_basic' | 'client_secret_post',
  credentials: { clientId: string; secret: string }
) {
  const server: oauth.AuthorizationServer = {
    issuer: baseUrl(),
    token_endpoint: `${baseUrl()}${route('oauth.token')}`,
  }
  const client: oauth.Client = { client_id: credentials.clientId }
  const clientAuth =
    authentication === 'client_secret_basic'
      ? oauth.ClientSecretBasic(credentials.secret)
      : oauth.ClientSecretPost(credentials.secret)
  const response = await oauth.clientCredentialsGrantRequest(
    server,
    client,
    clientAuth,
    new URLSearchParams({ scope: 'merchant-api' }),
    insecure
  )
  return oauth.processClientCredentialsResponse(server, client, response)
}

test.group('Interoperability with a third-party OAuth client (oauth4webapi)', (group) => {
  group.each.setup(() => resetState())

  for (const authentication of ['client_secret_basic', 'client_secret_post'] as const) {
    test(`obtains a token with ${authentication} and calls whoami`, async ({ client, assert }) => {
      const machine = await machineClientWithSecret(client)
      const result = await tokenThrough(authentication, machine)
      assert.equal(result.token_type, 'bearer')
      assert.isAbove(result.expires_in!, 0)
      const response = await oauth.protectedResourceRequest(
        result.access_token,
        'GET',
        new URL(`${baseUrl()}${route('merchant_api.whoami')}`),
        new Headers({ Accept: 'application/json' }),
        null,
        insecure
      )
      assert.equal(response.status, 200)
      const body = (await response.json()) as { data: { merchant_reference_id: string } }
      assert.equal(body.data.merchant_reference_id, machine.admin.merchant.referenceId)
    })
  }

  test('a wrong secret with Basic surfaces as a 401 Basic challenge with invalid_client', async ({
    client,
    assert,
  }) => {
    const machine = await machineClientWithSecret(client)
    try {
      await tokenThrough('client_secret_basic', { ...machine, secret: 'wrong' })
      assert.fail('expected an OAuth error')
    } catch (error) {
      // A 401 with `WWW-Authenticate: Basic` is reported as a challenge by the library.
      assert.instanceOf(error, oauth.WWWAuthenticateChallengeError)
      const challenge = error as oauth.WWWAuthenticateChallengeError
      assert.equal(challenge.status, 401)
      assert.equal(challenge.cause[0].scheme, 'basic')
      const body = (await challenge.response.json()) as { error: string }
      assert.equal(body.error, 'invalid_client')
    }
  })
})
