/*
| Graceful shutdown (issue 2 › Operating it): the real server, started as in
| production, finishes a request already in flight when SIGTERM arrives, stops
| accepting connections and exits 0. Every wait is bounded.
|
| "In flight" is made deterministic with `Expect: 100-continue`: once the server has
| answered `100 Continue` it holds the request, and the body is sent only after the
| signal.
*/
import { spawn, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import env from '#start/env'
import { appKey } from '#config/app'
import { resetState } from '#tests/helpers/database'
import { appHeaders, createMerchantWithUser, createPortalClient } from '#tests/helpers/portal'
import { route } from '#tests/helpers/routes'
import {
  accepts,
  eventually,
  exitOf,
  EXIT_MS,
  freePort,
  REQUEST_MS,
  within,
} from '#tests/helpers/server_process'

async function getStatus(port: number, path: string): Promise<number | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      signal: AbortSignal.timeout(REQUEST_MS),
    })
    return response.status
  } catch {
    return null
  }
}

/** Polls /health/live until 200 (bounded by the helper's READY_MS). */
async function waitUntilLive(port: number, child: ChildProcess, output: () => string) {
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`server exited early:\n${output()}`)
      return (await getStatus(port, route('health.live'))) === 200
    },
    'server live',
    { every: 150 }
  )
}

test.group('Graceful shutdown', (group) => {
  group.each.setup(() => resetState())

  test('on SIGTERM the server finishes the request in flight, stops accepting and exits 0', async ({
    assert,
  }) => {
    const portalClient = await createPortalClient()
    const { user, password } = await createMerchantWithUser()
    const port = await freePort()
    const child = spawn(process.execPath, ['--import=@poppinss/ts-exec', 'bin/server.ts'], {
      cwd: app.makePath(),
      env: {
        ...process.env,
        NODE_ENV: 'production',
        // The suite's key: Portal client secrets are stored as HMACs under APP_KEY.
        APP_KEY: appKey.release(),
        DATABASE_URL: env.get('DATABASE_URL'),
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout!.on('data', (chunk) => (output += chunk))
    child.stderr!.on('data', (chunk) => (output += chunk))

    const socket = new net.Socket()
    try {
      await waitUntilLive(port, child, () => output)

      // A login whose body is held back until after SIGTERM.
      const body = JSON.stringify({ username: user.email, password })
      const headers = { ...appHeaders(portalClient) }
      let received = ''
      const continued = new Promise<void>((resolve) => {
        socket.on('data', (chunk) => {
          received += chunk.toString('utf8')
          if (received.includes('100 Continue')) resolve()
        })
      })
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
      socket.on('error', () => {})
      await within(
        new Promise<void>((resolve, reject) => {
          socket.once('error', reject)
          socket.connect(port, '127.0.0.1', () => resolve())
        }),
        REQUEST_MS,
        'connect'
      )
      socket.write(
        [
          `POST ${route('auth.login')} HTTP/1.1`,
          `Host: 127.0.0.1:${port}`,
          'Content-Type: application/json',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Expect: 100-continue',
          `Authorization: ${headers.Authorization}`,
          `X-Service-Application: ${headers['X-Service-Application']}`,
          'Connection: close',
          '',
          '',
        ].join('\r\n')
      )
      await within(continued, REQUEST_MS, '100 Continue')

      child.kill('SIGTERM')
      const exited = exitOf(child)
      // write, not end: a half-closed request is an aborted one for Node's HTTP server.
      socket.write(body)
      await within(closed, REQUEST_MS, 'response to the request in flight')
      assert.match(received, /HTTP\/1\.1 200 OK/, received)
      assert.include(received, '"access_token"')

      const { code, signal } = await within(exited, EXIT_MS, 'exit after SIGTERM')
      assert.equal(code, 0, output)
      assert.isNull(signal)
      assert.isFalse(await accepts(port))
    } finally {
      socket.destroy()
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
  }).timeout(300_000)
})
