/*
| Database outage (issue 2 › Operating it): while PostgreSQL refuses the app's
| connections, requests answer 503 SERVICE_UNAVAILABLE without internals, readiness
| fails and liveness holds; when the database returns, the service recovers by itself.
|
| The outage is real: the test's database stops accepting connections
| (ALTER DATABASE ... ALLOW_CONNECTIONS false) and the app's sessions are terminated.
| Connections are allowed again in a `finally`, whatever happens.
*/
import { test } from '@japa/runner'
import pg from 'pg'
import env from '#start/env'
import { resetState } from '#tests/helpers/database'
import { appHeaders, signedInMember } from '#tests/helpers/portal'
import { ERROR_ENVELOPE_KEYS } from '#tests/helpers/foundation'
import { route } from '#tests/helpers/routes'

/** An admin session on the cluster's `postgres` database, and the app's database name. */
async function adminConnection() {
  const url = new URL(env.get('DATABASE_URL')!)
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''))
  url.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: url.toString() })
  await admin.connect()
  return { admin, database, quoted: `"${database.replaceAll('"', '""')}"` }
}

test.group('Database outage', (group) => {
  group.each.setup(() => resetState())

  test('requests answer 503 SERVICE_UNAVAILABLE during the outage and recover afterwards', async ({
    client,
    assert,
  }) => {
    const { bearer, user, password, client: app } = await signedInMember()
    const before = await client.get(route('profile.show')).header('Authorization', bearer)
    before.assertStatus(200)

    const { admin, database, quoted } = await adminConnection()
    try {
      await admin.query(`ALTER DATABASE ${quoted} WITH ALLOW_CONNECTIONS false`)
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database]
      )

      const [me, login, ready, live] = await Promise.all([
        client.get(route('profile.show')).header('Authorization', bearer),
        client
          .post(route('auth.login'))
          .headers(appHeaders(app))
          .json({ username: user.email, password }),
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
    } finally {
      await admin.query(`ALTER DATABASE ${quoted} WITH ALLOW_CONNECTIONS true`)
      await admin.end()
    }

    const after = await client.get(route('profile.show')).header('Authorization', bearer)
    after.assertStatus(200)
    const ready = await client.get(route('health.ready'))
    ready.assertStatus(200)
  }).timeout(120_000)
})
