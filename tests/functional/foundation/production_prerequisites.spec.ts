/*
| Production refuses to start without DATABASE_URL and APP_KEY (issue 2 › Runs on a
| fresh machine; decisions.md §3): it never falls back to the embedded database or a
| generated key.
*/
import { spawn } from 'node:child_process'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'

/** Starts the real server with exactly `env` and waits (bounded) for it to exit. */
function startProductionServer(env: Record<string, string>) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import=@poppinss/ts-exec', 'bin/server.ts'], {
      cwd: app.makePath(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server did not exit within 20 s:\n${output}`))
    }, 20_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

const KEY = 'production-test-key-0123456789abcdef0123'

test.group('Production prerequisites', () => {
  test('without DATABASE_URL the server refuses to start', async ({ assert }) => {
    const { code, output } = await startProductionServer({ APP_KEY: KEY, PORT: '0' })
    assert.notEqual(code, 0)
    assert.include(output, 'DATABASE_URL')
    assert.notInclude(output, 'embedded PostgreSQL')
  }).timeout(30_000)

  test('without APP_KEY the server refuses to start', async ({ assert }) => {
    const { code, output } = await startProductionServer({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      PORT: '0',
    })
    assert.notEqual(code, 0)
    assert.include(output, 'APP_KEY')
  }).timeout(30_000)
})
