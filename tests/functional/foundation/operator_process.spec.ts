import { test } from '@japa/runner'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import app from '@adonisjs/core/services/app'
import env from '#start/env'

const run = promisify(execFile)

test.group('Operator commands in their own process', () => {
  test('run without APP_KEY in the environment outside production (the local key is used, never an empty one)', async ({
    assert,
  }) => {
    // A command module that loads a config file while ace imports it, before the
    // runtime sets the local APP_KEY, froze an empty key: every command failed with
    // "Missing keys". Run one as an operator would, in a fresh process.
    const childEnv: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: env.get('DATABASE_URL') }
    delete childEnv.APP_KEY
    const { stdout } = await run(process.execPath, ['ace', 'auth:prune'], {
      cwd: app.makePath(),
      env: { ...childEnv, NODE_ENV: 'test' },
      timeout: 120_000,
    })
    const printed = JSON.parse(stdout.trim().split('\n').at(-1)!)
    assert.properties(printed, ['skipped', 'deleted'])
  })
})
