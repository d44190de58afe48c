/*
| Reset-link while PostgreSQL cannot be reached (issue 38 › 5): the answer is 503
| SERVICE_UNAVAILABLE, as on every other route that needs the database, whatever the
| limit store. With REDIS_URL the limits do not touch PostgreSQL, and the answer
| used to be a 200 with nothing sent, since the account lookup runs after it.
*/
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from '@japa/runner'
import { resetState } from '#tests/helpers/database'
import { createMerchantWithUser, PORTAL_ORIGIN } from '#tests/helpers/portal'
import { profileTestSetup } from '#tests/helpers/profile'
import { startRedisServer, whileDatabaseUnreachable } from '#tests/helpers/outages'
import { eventually, startProductionServer } from '#tests/helpers/server_process'
import { route } from '#tests/helpers/routes'

const RESET_URL = `${PORTAL_ORIGIN}/reset-password`

/** POST reset-link on the server at `base`: its status and body. */
async function requestLink(base: string, email: string) {
  const response = await fetch(`${base}${route('auth.reset_link')}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, reset_url: RESET_URL }),
    signal: AbortSignal.timeout(60_000),
  })
  return { status: response.status, body: (await response.json().catch(() => null)) as any }
}

test.group('Reset-link during a database outage', (group) => {
  group.each.setup(() => resetState())

  test('with the Redis limit store: 503 SERVICE_UNAVAILABLE, never a 200 with nothing sent; 200 again once the database is back', async ({
    assert,
    cleanup,
  }) => {
    const { user } = await createMerchantWithUser()
    const redis = await startRedisServer()
    cleanup(() => redis.stop())
    const outbox = await mkdtemp(join(tmpdir(), 'outbox-'))
    cleanup(() => rm(outbox, { recursive: true, force: true }))
    const server = await startProductionServer({
      REDIS_URL: redis.url,
      PORTAL_URL: PORTAL_ORIGIN,
      MAIL_OUTBOX_DIR: outbox,
    })
    cleanup(() => server.kill())

    const before = await requestLink(server.base, user.email)
    assert.equal(before.status, 200)
    const during = await whileDatabaseUnreachable(() => requestLink(server.base, user.email))
    assert.equal(during.status, 503, JSON.stringify(during.body))
    assert.deepEqual(during.body, {
      success: false,
      message: during.body.message,
      error_code: 'SERVICE_UNAVAILABLE',
    })

    await eventually(async () => {
      const after = await requestLink(server.base, user.email)
      return after.status === 200
    }, 'reset-link answers 200 once the database is back')
  }).timeout(300_000)

  test('with the PostgreSQL limit store: 503 SERVICE_UNAVAILABLE as well', async ({
    client,
    assert,
  }) => {
    const { restore } = profileTestSetup()
    try {
      const { user } = await createMerchantWithUser()
      const response = await whileDatabaseUnreachable(() =>
        client.post(route('auth.reset_link')).json({ email: user.email, reset_url: RESET_URL })
      )
      response.assertStatus(503)
      assert.equal(response.body().error_code, 'SERVICE_UNAVAILABLE')
    } finally {
      await restore()
    }
  }).timeout(300_000)
})
