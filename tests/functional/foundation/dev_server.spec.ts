/*
| The README's two commands: `npm run dev` (`node ace serve --hmr`) on a machine with
| no database starts the embedded PostgreSQL, migrates it, seeds the demo data (its
| year of collections goes through the real import, on the import's preparation
| thread) and serves it. The import's thread once inherited the development server's
| hot-reload hooks and crashed the first run.
|
| The server runs in a child process group of its own, without DATABASE_URL, on an
| embedded cluster of its own (tmp/postgres/development-<port>, removed afterwards).
| A development server rewrites the committed route types (.adonisjs/server/routes.d.ts)
| as it starts, truncating the file first: stopped in the middle of that write, it
| would leave the file empty and the next typecheck failing, so the test puts back the
| file it found.
*/
import { spawn } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import {
  eventually,
  EXIT_MS,
  exitOf,
  freePort,
  READY_MS,
  within,
} from '#tests/helpers/server_process'

test.group('npm run dev on a bare machine', () => {
  test('the first run seeds the demo data, imports its transactions and serves them', async ({
    assert,
    cleanup,
  }) => {
    const [port, embeddedPort] = [await freePort(), await freePort()]
    cleanup(() =>
      rm(app.tmpPath('postgres', `development-${embeddedPort}`), { recursive: true, force: true })
    )
    const routeTypesPath = app.makePath('.adonisjs', 'server', 'routes.d.ts')
    const routeTypes = await readFile(routeTypesPath, 'utf8').catch(() => undefined)
    const server = spawn(process.execPath, ['ace.js', 'serve', '--hmr'], {
      cwd: app.makePath(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'development',
        PORT: String(port),
        HOST: '127.0.0.1',
        EMBEDDED_POSTGRES_PORT: String(embeddedPort),
        NO_COLOR: '1',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    server.stdout.on('data', (chunk) => (output += chunk))
    server.stderr.on('data', (chunk) => (output += chunk))
    const exited = exitOf(server)
    cleanup(async () => {
      // The whole group (the watcher and its server); SIGTERM stops the cluster too.
      if (server.exitCode === null) process.kill(-server.pid!, 'SIGTERM')
      await within(exited, EXIT_MS, 'the development server to stop').catch(() => {
        if (server.exitCode === null) process.kill(-server.pid!, 'SIGKILL')
      })
      if (routeTypes) await writeFile(routeTypesPath, routeTypes)
    })

    const demoAdmin = async () => {
      if (server.exitCode !== null) throw new Error(`the server exited:\n${output}`)
      return /"username": "admin@demo-merchant\.test"/.test(output)
    }
    await eventually(demoAdmin, 'the demo logins printed', { within: 2 * READY_MS })
    const live = async () => {
      if (server.exitCode !== null) throw new Error(`the server exited:\n${output}`)
      const response = await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => null)
      return response?.status === 200
    }
    await eventually(live, 'the server answering')

    // The printed curl logs in; the demo year is there to read with its token.
    const client = output.match(/-u '([^':]+):([^']+)'/)
    const login = output.match(/-d '(\{"username":"admin@demo-merchant\.test"[^']*\})'/)
    assert.exists(client, output)
    assert.exists(login, output)
    const basic = Buffer.from(`${client![1]}:${client![2]}`).toString('base64')
    const signedIn = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
      method: 'POST',
      headers: {
        'Authorization': `Basic ${basic}`,
        'X-Service-Application': 'merchant_portal',
        'Content-Type': 'application/json',
      },
      body: login![1],
    })
    assert.equal(signedIn.status, 200, output)
    const {
      data: { access_token: token },
    } = (await signedIn.json()) as { data: { access_token: string } }
    const listed = await fetch(
      `http://127.0.0.1:${port}/api/v1/portal/collections/transactions?environment=live`,
      {
        headers: { 'Authorization': `Bearer ${token}`, 'X-Service-Application': 'merchant_portal' },
      }
    )
    const page = (await listed.json()) as { data: unknown[]; meta: { total: number } }
    assert.equal(listed.status, 200, JSON.stringify(page))
    assert.isAbove(page.data.length, 0, 'the demo year was imported')
  }).timeout(480_000)
})
