/*
| Configuration errors in one line (issue 37 › 6): the server and every ace command
| print one line per problem on stderr, `configuration error: <problem>`, with no stack
| trace, source excerpt or colour when the output is not a terminal, and exit non-zero.
| Real processes, started as an operator starts them (bin/server.ts, `node ace`).
*/
import { spawn } from 'node:child_process'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import env from '#start/env'
import { exitOf, within } from '#tests/helpers/server_process'

const ENTRY_POINTS = {
  'the server': ['--import=@poppinss/ts-exec', 'bin/server.ts'],
  'an ace command': ['ace.js', 'auth:prune'],
}

/** Runs `argv` with a production environment changed by `overrides` (undefined: unset). */
async function refusal(argv: string[], overrides: Record<string, string | undefined>) {
  const variables: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    APP_KEY: 'k'.repeat(40),
    DATABASE_URL: env.get('DATABASE_URL'),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ...overrides,
  }
  const child = spawn(process.execPath, argv, {
    cwd: app.makePath(),
    env: Object.fromEntries(Object.entries(variables).filter(([, value]) => value !== undefined)),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  try {
    const { code } = await within(exitOf(child), 60_000, `${argv.join(' ')} to exit`)
    return { code, stdout, stderr }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
  }
}

/** Both entry points refuse `overrides` with exactly `lines` on stderr, and nothing else. */
async function assertRefusedInOneLineEach(
  assert: import('@japa/assert').Assert,
  overrides: Record<string, string | undefined>,
  lines: string[]
) {
  const outcomes = await Promise.all(
    Object.entries(ENTRY_POINTS).map(async ([name, argv]) => ({
      name,
      ...(await refusal(argv, overrides)),
    }))
  )
  for (const { name, code, stdout, stderr } of outcomes) {
    assert.notEqual(code, 0, `${name} exits non-zero`)
    assert.sameMembers(stderr.split('\n').slice(0, -1), lines, `${name} printed:\n${stderr}`)
    assert.isTrue(stderr.endsWith('\n'), name)
    const everything = stdout + stderr
    assert.notMatch(everything, /^\s*(?:⁃\s*)?at /m, `${name}: no stack frame`)
    assert.notInclude(everything, '\u001b', `${name}: no escape codes`)
  }
}

test.group('Configuration errors in one line', () => {
  test('an APP_KEY shorter than 32 characters is one line', async ({ assert }) => {
    await assertRefusedInOneLineEach(assert, { APP_KEY: 'k'.repeat(31) }, [
      'configuration error: APP_KEY must be at least 32 characters',
    ])
  }).timeout(120_000)

  test('production without APP_KEY and DATABASE_URL: one line for each', async ({ assert }) => {
    await assertRefusedInOneLineEach(assert, { APP_KEY: undefined, DATABASE_URL: undefined }, [
      'configuration error: APP_KEY is required in production',
      'configuration error: DATABASE_URL is required in production',
    ])
  }).timeout(120_000)

  test('values that cannot mean what their variables say: one line for each', async ({
    assert,
  }) => {
    await assertRefusedInOneLineEach(
      assert,
      { PAT_TTL_MINUTES: '-5', RATE_LIMIT_LOGIN_PER_MINUTE: '0' },
      [
        'configuration error: PAT_TTL_MINUTES must be a whole number from 1 up',
        'configuration error: RATE_LIMIT_LOGIN_PER_MINUTE must be a number greater than 0',
      ]
    )
  }).timeout(120_000)

  test("start/env.ts's refusals are one line each, without the refused value", async ({
    assert,
  }) => {
    await assertRefusedInOneLineEach(
      assert,
      { SMTP_PORT: 'smtp-port-value', MAIL_MAILER: 'carrier-pigeon' },
      [
        'configuration error: MAIL_MAILER must be one of "smtp,outbox"',
        'configuration error: SMTP_PORT must be a number',
      ]
    )
  }).timeout(120_000)

  test('an S3 disk without its bucket settings is one line', async ({ assert }) => {
    await assertRefusedInOneLineEach(assert, { DRIVE_DISK: 's3', AWS_REGION: 'eu-west-1' }, [
      'configuration error: DRIVE_DISK=s3 needs AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, S3_BUCKET',
    ])
  }).timeout(120_000)
})
