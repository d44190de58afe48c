/*
| Issue 22 › 2, over HTTP: what lets the /docs page log in. Outside production the
| service's own origins pass a Portal client's origin check (app/auth/portal_clients.ts,
| app/support/service_url.ts), and a failed application authentication sent by a
| page's script carries no Basic challenge, which a browser would hold for its own
| password dialog (app/middleware/app_client_auth_middleware.ts). The browser test of
| the whole flow is tests/functional/openapi/docs_login.spec.ts.
*/
import { test } from '@japa/runner'
import { resetState } from '#tests/helpers/database'
import { appHeaders, createMerchantWithUser, createPortalClient } from '#tests/helpers/portal'
import { route } from '#tests/helpers/routes'
import { portalLogin } from '#tests/helpers/requests'

const PORT = Number(process.env.PORT)

async function loginSetup() {
  // Allowed origins like the demo client's: the Portal's, not this service's.
  const app = await createPortalClient({ allowedOrigins: ['http://localhost:5173'] })
  const { user, password } = await createMerchantWithUser()
  return { app, body: { username: user.email, password } }
}

test.group("Outside production, the service's own origins pass the origin check", (group) => {
  group.each.setup(() => resetState())

  test('login from a page of this service succeeds under each loopback name', async ({
    client,
  }) => {
    // The test server listens on HOST=127.0.0.1 (.env.test), PORT.
    for (const origin of [
      `http://127.0.0.1:${PORT}`,
      `http://localhost:${PORT}`,
      `http://[::1]:${PORT}`,
    ]) {
      const { app, body } = await loginSetup()
      const response = await portalLogin(client, app, body, { Origin: origin })
      response.assertStatus(200)
    }
  })

  test('the same host on another port or scheme is still refused', async ({ client, assert }) => {
    for (const origin of [
      `http://127.0.0.1:${PORT + 1}`,
      `https://127.0.0.1:${PORT}`,
      'http://127.0.0.1',
      'null',
    ]) {
      const { app, body } = await loginSetup()
      const response = await portalLogin(client, app, body, { Origin: origin })
      response.assertStatus(401)
      assert.equal(response.body().error_code, 'ECOSYSTEM_CLIENT_UNAUTHENTICATED', origin)
    }
  })
})

test.group('A page script gets no Basic challenge on a refused application', (group) => {
  group.each.setup(() => resetState())

  test('fetch or XHR from a page (Sec-Fetch-Mode cors, same-origin): 401 without WWW-Authenticate', async ({
    client,
    assert,
  }) => {
    const { app, body } = await loginSetup()
    for (const mode of ['cors', 'same-origin', 'no-cors']) {
      const response = await client
        .post(route('auth.login'))
        .headers({ ...appHeaders(app, 'mistyped-secret'), 'Sec-Fetch-Mode': mode })
        .json(body)
      response.assertStatus(401)
      assert.equal(response.body().error_code, 'ECOSYSTEM_CLIENT_UNAUTHENTICATED')
      assert.isUndefined(response.header('www-authenticate'), mode)
    }
  })

  test('any other caller (no Sec-Fetch-Mode, or a navigation) gets the Basic challenge', async ({
    client,
  }) => {
    const { app, body } = await loginSetup()
    const callers: Record<string, string>[] = [{}, { 'Sec-Fetch-Mode': 'navigate' }]
    for (const extra of callers) {
      const response = await client
        .post(route('auth.login'))
        .headers({ ...appHeaders(app, 'mistyped-secret'), ...extra })
        .json(body)
      response.assertStatus(401)
      response.assertHeader('www-authenticate', 'Basic realm="portal", charset="UTF-8"')
    }
  })
})
