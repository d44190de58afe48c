/*
| Configuration errors in one line (issue 37 › 6): the server and every ace command
| print one line per problem on stderr, `configuration error: <problem>`, with no stack
| trace, source excerpt or colour when the output is not a terminal, and exit non-zero.
| Real processes, started as an operator starts them (bin/server.ts, `node ace`).
*/
import { test } from '@japa/runner'
import type { Assert } from '@japa/assert'
import env from '#start/env'
import { EXIT_MS, runToExit } from '#tests/helpers/server_process'

const ENTRY_POINTS = {
  'the server': ['--import=@poppinss/ts-exec', 'bin/server.ts'],
  'an ace command': ['ace.js', 'auth:prune'],
}

/** Runs `argv` with a production environment changed by `overrides` (undefined: unset). */
function refusal(argv: string[], overrides: Record<string, string | undefined>) {
  return runToExit(argv, {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      APP_KEY: 'k'.repeat(40),
      DATABASE_URL: env.get('DATABASE_URL'),
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      ...overrides,
    },
    withinMs: EXIT_MS,
  })
}

/** Both entry points refuse `overrides` with exactly `lines` on stderr, and nothing else. */
async function assertRefusedInOneLineEach(
  assert: Assert,
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

/** Each refused environment, and the lines both entry points print for it. */
const REFUSALS: Array<{
  title: string
  overrides: Record<string, string | undefined>
  lines: string[]
}> = [
  {
    title: 'an APP_KEY shorter than 32 characters is one line',
    overrides: { APP_KEY: 'k'.repeat(31) },
    lines: ['configuration error: APP_KEY must be at least 32 characters'],
  },
  {
    title: 'production without APP_KEY and DATABASE_URL: one line for each',
    overrides: { APP_KEY: undefined, DATABASE_URL: undefined },
    lines: [
      'configuration error: APP_KEY is required in production',
      'configuration error: DATABASE_URL is required in production',
    ],
  },
  {
    title: 'values that cannot mean what their variables say: one line for each',
    overrides: { PAT_TTL_MINUTES: '-5', RATE_LIMIT_LOGIN_PER_MINUTE: '0' },
    lines: [
      'configuration error: PAT_TTL_MINUTES must be a whole number from 1 up',
      'configuration error: RATE_LIMIT_LOGIN_PER_MINUTE must be a number greater than 0',
    ],
  },
  {
    title: "start/env.ts's refusals are one line each, without the refused value",
    overrides: { SMTP_PORT: 'smtp-port-value', MAIL_MAILER: 'carrier-pigeon' },
    lines: [
      'configuration error: MAIL_MAILER must be one of "smtp,outbox"',
      'configuration error: SMTP_PORT must be a number',
    ],
  },
  {
    title: 'an S3 disk without its bucket settings is one line',
    overrides: { DRIVE_DISK: 's3', AWS_REGION: 'eu-west-1' },
    lines: [
      'configuration error: DRIVE_DISK=s3 needs AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, S3_BUCKET',
    ],
  },
]

test.group('Configuration errors in one line', () => {
  for (const { title, overrides, lines } of REFUSALS) {
    test(title, async ({ assert }) => {
      await assertRefusedInOneLineEach(assert, overrides, lines)
    }).timeout(120_000)
  }
})
