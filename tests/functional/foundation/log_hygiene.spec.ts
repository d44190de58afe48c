/*
| Structured logs (issue 2 › Operating it): one line per request with its request id,
| and never a password, token or secret.
*/
import { test } from '@japa/runner'
import { resetState } from '#tests/helpers/database'
import { captureLogs } from '#tests/helpers/logs'
import { createMerchantWithUser, createPortalClient } from '#tests/helpers/portal'
import { TEST_PORTAL_CLIENT_SECRET } from '#database/factories/portal_client_factory'
import { route } from '#tests/helpers/routes'
import { portalLogin } from '#tests/helpers/requests'

test.group('Logs', (group) => {
  group.each.setup(() => resetState())

  test('a sign-in session logs each request with its id and never a credential', async ({
    client,
    assert,
    cleanup,
  }) => {
    const logs = captureLogs()
    cleanup(() => logs.restore())
    const app = await createPortalClient()
    const { user, password } = await createMerchantWithUser()

    const login = await portalLogin(client, app, { username: user.email, password })
    login.assertStatus(200)
    const pat: string = login.body().data.access_token
    const wrong = await portalLogin(client, app, {
      username: user.email,
      password: `${password}-wrong`,
    })
    wrong.assertStatus(401)
    await client
      .get(`${route('profile.show')}?proof=query-secret-value`)
      .header('Authorization', `Bearer ${pat}`)
    await client.post(route('auth.logout')).header('Authorization', `Bearer ${pat}`)

    const requestLines = logs.lines.filter((line) => line.includes('request completed'))
    assert.isAtLeast(requestLines.length, 4)
    for (const line of requestLines) assert.match(line, /"request_id":"[0-9a-f-]{36}"/)
    const everything = logs.lines.join('\n')
    for (const secret of [
      password,
      pat,
      pat.split('.')[1],
      TEST_PORTAL_CLIENT_SECRET,
      'query-secret-value',
    ]) {
      assert.notInclude(everything, secret)
    }
  })
})
