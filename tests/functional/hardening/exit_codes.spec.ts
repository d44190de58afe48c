/*
| Issue 21 › 5: every entry point exits non-zero on failure on the embedded PostgreSQL
| too (DATABASE_URL unset, the README's default). The package's exit hook used to end
| every process that started the cluster with exit code 0.
|
| Each run is a child process without DATABASE_URL, on a port of its own for the
| embedded cluster (its data under tmp/postgres/test-<port>, removed afterwards), so it
| starts and owns its cluster, as `npm test` does, and shares nothing with this run.
*/
import { spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import { accepts, exitOf, freePort, READY_MS, within } from '#tests/helpers/server_process'

async function onEmbeddedDatabase(
  embeddedPort: number,
  args: string[],
  extraEnv: Record<string, string> = {}
) {
  const child = spawn(process.execPath, ['ace.js', ...args], {
    cwd: app.makePath(),
    // Not this run's environment: no DATABASE_URL, no REDIS_URL, no METRICS_PORT.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'test',
      PORT: String(await freePort()),
      EMBEDDED_POSTGRES_PORT: String(embeddedPort),
      NO_COLOR: '1',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  try {
    const { code } = await within(exitOf(child), READY_MS, `node ace ${args.join(' ')}`)
    return { code, output }
  } finally {
    // SIGTERM, not SIGKILL: app.terminate() stops the cluster the child started.
    if (child.exitCode === null) child.kill('SIGTERM')
  }
}

test.group('Exit codes on the embedded PostgreSQL (issue 21 › 5)', (group) => {
  let embeddedPort: number
  group.setup(async () => {
    embeddedPort = await freePort()
    return () =>
      rm(app.tmpPath('postgres', `test-${embeddedPort}`), { recursive: true, force: true })
  })

  test('an ace command given bad input exits non-zero', async ({ assert }) => {
    const { code, output } = await onEmbeddedDatabase(embeddedPort, ['merchant:create', '--name=x'])
    assert.include(output, `tmp/postgres/test-${embeddedPort}`, 'it started its own cluster')
    assert.include(output, 'The email field must be defined')
    assert.equal(code, 1, output)
    assert.isFalse(await accepts(embeddedPort), 'the cluster it started is stopped')
  }).timeout(180_000)

  test('a test run with a failing test exits non-zero', async ({ assert }) => {
    const { code, output } = await onEmbeddedDatabase(embeddedPort, ['test', 'failing_run'], {
      FAILING_RUN_SUITE: '1',
    })
    assert.include(output, 'fails on purpose (run only by the exit code test)')
    assert.match(output, /Tests\s+1 failed \(1\)/)
    assert.equal(code, 1, output)
    assert.isFalse(await accepts(embeddedPort), 'the cluster it started is stopped')
  }).timeout(180_000)
})
