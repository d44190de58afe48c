/*
| Health endpoints (issue 2 › Operating it): liveness and readiness with the
| framework's health checks (database reachable, migrations applied).
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import env from '#start/env'
import { route } from '#tests/helpers/routes'

test.group('Health', () => {
  test('/health/live is 200', async ({ client, assert }) => {
    const response = await client.get(route('health.live'))
    response.assertStatus(200)
    assert.deepEqual(response.body(), { status: 'ok' })
  })

  test('/health/ready is 200 with the database and migration checks ok', async ({
    client,
    assert,
  }) => {
    const response = await client.get(route('health.ready'))
    response.assertStatus(200)
    assert.equal(response.body().status, 'ok')
    const checks = response.body().checks as Array<{ name: string; status: string }>
    // A third check, Redis reachable, is registered only when REDIS_URL is set.
    const expected = env.get('REDIS_URL') ? 3 : 2
    assert.lengthOf(checks, expected)
    assert.sameMembers(
      checks.map((check) => check.status),
      Array(expected).fill('ok')
    )
    assert.isTrue(checks.some((check) => /migration/i.test(check.name)))
    assert.isTrue(checks.some((check) => /database|db/i.test(check.name)))
    assert.notMatch(response.text(), /postgres:\/\//)
  })

  test('/health/ready checks the database connection as it is now, after it was closed and re-made', async ({
    client,
    assert,
  }) => {
    const before = await client.get(route('health.ready'))
    before.assertStatus(200)
    await db.manager.closeAll()
    const response = await client.get(route('health.ready'))
    response.assertStatus(200)
    assert.equal(response.body().status, 'ok')
  })
})
