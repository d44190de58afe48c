/*
| What only a whole server process shows (issue 9 › 5, 9, 10): a Redis outage and
| recovery without restarting the service; background work drained on SIGTERM before
| the database pool closes; production refusing a short APP_KEY.
*/
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import pg from 'pg'
import env from '#start/env'
import { resetState, untilSomeBackendWaitsForALock } from '#tests/helpers/database'
import { startRedisServer } from '#tests/helpers/outages'
import { createMerchantWithUser, signedInMember } from '#tests/helpers/portal'
import {
  accepts,
  eventually,
  exitOf,
  pause,
  EXIT_MS,
  READY_MS,
  REQUEST_MS,
  startProductionServer,
  within,
} from '#tests/helpers/server_process'
import { route } from '#tests/helpers/routes'

const PORTAL = 'https://portal.example.test'

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(REQUEST_MS) })
  return { status: response.status, body: (await response.json().catch(() => null)) as any }
}

async function tokenRequest(base: string) {
  const response = await fetch(`${base}${route('oauth.token')}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=1&client_secret=x',
    signal: AbortSignal.timeout(REQUEST_MS),
  })
  return { status: response.status, body: (await response.json().catch(() => null)) as any }
}

test.group('Process lifecycle (issue 9 › 5, 9, 10)', (group) => {
  group.each.setup(() => resetState())

  test('Redis outage: 503 SERVICE_UNAVAILABLE while the limiter store is down, 200 again once it is back, without restarting the service', async ({
    assert,
  }) => {
    let redis = await startRedisServer()
    const { bearer } = await signedInMember()
    let server: Awaited<ReturnType<typeof startProductionServer>> | undefined
    try {
      server = await startProductionServer({ REDIS_URL: redis.url })
      const me = () => get(`${server!.base}${route('profile.show')}`, { Authorization: bearer })
      assert.equal(await me().then((response) => response.status), 200)
      assert.equal(
        await get(`${server.base}${route('health.ready')}`).then((response) => response.status),
        200
      )

      await redis.stop()
      let during = await me()
      await eventually(async () => {
        during = await me()
        return during.status === 503
      }, '503 during the outage')
      assert.deepEqual(during.body, {
        success: false,
        message: during.body.message,
        error_code: 'SERVICE_UNAVAILABLE',
      })
      const oauth = await tokenRequest(server.base)
      assert.equal(oauth.status, 503)
      assert.deepEqual(Object.keys(oauth.body).sort(), ['error', 'error_description'])
      assert.equal(oauth.body.error, 'temporarily_unavailable')
      const ready = await get(`${server.base}${route('health.ready')}`)
      assert.equal(ready.status, 503)
      assert.deepInclude(ready.body.checks, { name: 'Redis reachable', status: 'error' })
      // Still 503 well after ioredis's old retry budget (11 tries, about 3 s) ran out.
      await pause(4_000)
      assert.equal(await me().then((response) => response.status), 503)

      redis = await startRedisServer(redis.port)
      await eventually(
        async () => (await me().then((response) => response.status)) === 200,
        '200 after Redis is back'
      )
      assert.equal(
        await get(`${server.base}${route('health.ready')}`).then((response) => response.status),
        200
      )
      assert.equal(await tokenRequest(server.base).then((response) => response.status), 401)
      assert.isNull(server.child.exitCode, 'the service was not restarted')
    } finally {
      server?.kill()
      await redis.stop()
    }
  }).timeout(300_000)

  test('SIGTERM drains reset-link work (lookup, proof write, mail) before the database pool closes', async ({
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    const outbox = await mkdtemp(join(tmpdir(), 'outbox-'))
    const server = await startProductionServer({
      MAIL_OUTBOX_DIR: outbox,
      PORTAL_URL: PORTAL,
      LOG_LEVEL: 'info',
    })
    // Holds the reset-link lookup (it joins merchants) until after SIGTERM.
    const url = new URL(env.get('DATABASE_URL')!)
    const locker = new pg.Client({ connectionString: url.toString() })
    await locker.connect()
    try {
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE merchants IN ACCESS EXCLUSIVE MODE')
      const response = await fetch(`${server.base}${route('auth.reset_link')}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: user.email, reset_url: `${PORTAL}/reset` }),
      })
      assert.equal(response.status, 200)
      await untilSomeBackendWaitsForALock({ query: '%merchants%' })

      const exited = exitOf(server.child)
      server.child.kill('SIGTERM')
      // Shutdown has begun once the server stops accepting connections; give it the
      // chance to close the pool under the held lookup (it must not).
      await eventually(async () => !(await accepts(server.port)), 'listener closed')
      await eventually(
        async () => server.output().includes('draining background work'),
        'drain announced',
        { every: 150 }
      )
      await locker.query('COMMIT')

      const { code } = await within(exited, EXIT_MS, 'exit after SIGTERM')
      assert.equal(code, 0, server.output())
      const proofs = await db.from('password_reset_tokens').where('user_id', user.id)
      assert.lengthOf(proofs, 1, server.output())
      const files = await readdir(outbox)
      const mails = files.filter((name) => name.endsWith('.json'))
      assert.lengthOf(mails, 1)
      const mail = JSON.parse(await readFile(join(outbox, mails[0]), 'utf8'))
      assert.equal(mail.to, user.email)
    } finally {
      await locker.query('ROLLBACK').catch(() => {})
      await locker.end()
      server.kill()
      await rm(outbox, { recursive: true, force: true })
    }
  }).timeout(300_000)

  /** Starts the production server with `overrides` and waits for it to refuse. */
  async function refusalToStart(overrides: Record<string, string>) {
    const child = spawn(process.execPath, ['--import=@poppinss/ts-exec', 'bin/server.ts'], {
      cwd: app.makePath(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        APP_KEY: 'k'.repeat(40),
        DATABASE_URL: env.get('DATABASE_URL')!,
        HOST: '127.0.0.1',
        PORT: '0',
        ...overrides,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    try {
      const { code } = await within(exitOf(child), READY_MS, 'refusal to start')
      return { code, output }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  }

  test('a configuration value that cannot mean what its variable says stops the server at boot', async ({
    assert,
  }) => {
    const { code, output } = await refusalToStart({
      PAT_TTL_MINUTES: '-5',
      RATE_LIMIT_API_PER_MINUTE: 'lots',
      REPORTING_DEFAULT_TIMEZONE: 'Mars/Olympus',
    })
    assert.notEqual(code, 0)
    assert.match(output, /PAT_TTL_MINUTES must be a whole number from 1/)
    assert.match(output, /RATE_LIMIT_API_PER_MINUTE must be a number greater than 0/)
    assert.match(output, /REPORTING_DEFAULT_TIMEZONE must be an IANA time zone name/)
  }).timeout(180_000)

  test('production refuses to start with an APP_KEY shorter than 32 characters', async ({
    assert,
  }) => {
    const { code, output } = await refusalToStart({ APP_KEY: 'k'.repeat(31) })
    assert.notEqual(code, 0)
    assert.match(output, /APP_KEY must be at least 32 characters/)
  }).timeout(180_000)
})
