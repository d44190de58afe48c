/*
| Database outage (issue 2 › Operating it): while PostgreSQL refuses the app's
| connections, requests answer 503 SERVICE_UNAVAILABLE without internals, readiness
| fails and liveness holds; when the database returns, the service recovers by itself.
|
| The outage is real (tests/helpers/outages.ts): the test's database stops accepting
| connections and the app's sessions are terminated; connections are allowed again
| afterwards, whatever happens.
*/
import { test } from '@japa/runner'
import { resetState } from '#tests/helpers/database'
import { whileDatabaseUnreachable } from '#tests/helpers/outages'
import { signedInMember } from '#tests/helpers/portal'
import { ERROR_ENVELOPE_KEYS } from '#tests/helpers/foundation'
import { route } from '#tests/helpers/routes'
import { getProfile, portalLogin } from '#tests/helpers/requests'

test.group('Database outage', (group) => {
  group.each.setup(() => resetState())

  test('requests answer 503 SERVICE_UNAVAILABLE during the outage and recover afterwards', async ({
    client,
    assert,
  }) => {
    const { bearer, user, password, client: app } = await signedInMember()
    const before = await getProfile(client, bearer)
    before.assertStatus(200)

    await whileDatabaseUnreachable(async () => {
      const [me, login, ready, live] = await Promise.all([
        getProfile(client, bearer),
        portalLogin(client, app, { username: user.email, password }),
        client.get(route('health.ready')),
        client.get(route('health.live')),
      ])

      me.assertStatus(503)
      assert.deepEqual(me.body(), {
        success: false,
        message: me.body().message,
        error_code: 'SERVICE_UNAVAILABLE',
      })
      assert.includeMembers(ERROR_ENVELOPE_KEYS, Object.keys(me.body()))
      assert.notMatch(me.text(), /postgres|database|connection|knex|timeout|\.ts:\d+/i)
      me.assertHeader('cache-control', 'no-store')

      login.assertStatus(503)
      assert.equal(login.body().error_code, 'SERVICE_UNAVAILABLE')

      ready.assertStatus(503)
      assert.notEqual(ready.body().status, 'ok')
      assert.notMatch(ready.text(), /postgres:\/\//)

      live.assertStatus(200)
    })

    const after = await getProfile(client, bearer)
    after.assertStatus(200)
    const ready = await client.get(route('health.ready'))
    ready.assertStatus(200)
  }).timeout(120_000)
})
