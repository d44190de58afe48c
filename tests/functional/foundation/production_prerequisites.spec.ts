/*
| Production refuses to start without DATABASE_URL and APP_KEY (issue 2 › Runs on a
| fresh machine; decisions.md §3): it never falls back to the embedded database or a
| generated key.
*/
import { execFile } from 'node:child_process'
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { promisify } from 'node:util'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import { EXIT_MS, READY_MS, runToExit } from '#tests/helpers/server_process'

const run = promisify(execFile)

/** Starts the real server with exactly `env` and waits (bounded) for it to exit. */
function startProductionServer(env: Record<string, string>) {
  return runToExit(['--import=@poppinss/ts-exec', 'bin/server.ts'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', ...env },
    withinMs: READY_MS,
  })
}

const KEY = 'production-test-key-0123456789abcdef0123'

test.group('Production prerequisites', () => {
  test('without DATABASE_URL the server refuses to start', async ({ assert }) => {
    const { code, output } = await startProductionServer({ APP_KEY: KEY, PORT: '0' })
    assert.notEqual(code, 0)
    assert.include(output, 'DATABASE_URL')
    assert.notInclude(output, 'embedded PostgreSQL')
  }).timeout(180_000)

  test('without APP_KEY the server refuses to start', async ({ assert }) => {
    const { code, output } = await startProductionServer({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      PORT: '0',
    })
    assert.notEqual(code, 0)
    assert.include(output, 'APP_KEY')
  }).timeout(180_000)
})

/*
| A production build runs as production (issue 37 › 5): the compiled entry points
| (`build/bin/server.js`, `build/ace.js`) take NODE_ENV=production when it is unset
| (start/node_environment.ts), so a deployment that forgets it still refuses to start
| without DATABASE_URL and APP_KEY instead of starting an embedded database with a
| generated key. The build is made once, from a copy of the checkout in a temporary
| folder, so the checkout's own build/ is left alone.
*/
test.group('A production build without NODE_ENV', (group) => {
  let copy: string
  let build: string

  group.setup(async () => {
    copy = await mkdtemp(join(tmpdir(), 'production-build-'))
    const root = app.makePath()
    const notCopied = new Set(['node_modules', 'build', 'tmp', 'storage', '.git'])
    await cp(root, copy, {
      recursive: true,
      filter: (source) => !notCopied.has(relative(root, source).split(sep)[0]),
    })
    await symlink(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir')
    // As `npm run build` does: the generated files first (.adonisjs/server), so the copy
    // never inherits a routes.d.ts that a development process killed mid-write emptied.
    for (const step of ['codegen', 'build']) {
      await run(process.execPath, ['ace.js', step], {
        cwd: copy,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        timeout: 300_000,
      })
    }
    build = join(copy, 'build')
    return () => rm(copy, { recursive: true, force: true })
  })

  /** Runs a built entry point with exactly `env` (no NODE_ENV) until it exits, bounded. */
  function runBuilt(argv: string[], env: Record<string, string>) {
    return runToExit(argv, {
      cwd: build,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', ...env },
      withinMs: EXIT_MS,
    })
  }

  test('the built server refuses to start without DATABASE_URL, as production', async ({
    assert,
  }) => {
    const { code, stdout, stderr } = await runBuilt(['bin/server.js'], { APP_KEY: KEY })
    assert.notEqual(code, 0)
    assert.equal(stderr, 'configuration error: DATABASE_URL is required in production\n')
    assert.notInclude(stdout + stderr, 'embedded PostgreSQL')
  }).timeout(120_000)

  for (const [title, argv] of [
    ['the built server refuses to start without APP_KEY, as production', ['bin/server.js']],
    ['a built ace command refuses to run without APP_KEY, as production', ['ace.js', 'auth:prune']],
  ] as const) {
    test(title, async ({ assert }) => {
      const { code, stderr } = await runBuilt([...argv], {
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      })
      assert.notEqual(code, 0)
      assert.equal(stderr, 'configuration error: APP_KEY is required in production\n')
    }).timeout(120_000)
  }
})
