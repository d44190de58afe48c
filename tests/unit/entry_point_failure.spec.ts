/*
| start/entry_point_failure.ts: what an entry point prints for the error that stopped it.
| stderr is captured, and the exit code the test runner set is put back.
*/
import { test } from '@japa/runner'
import { reportEntryPointFailure } from '#start/entry_point_failure'
import { ConfigurationError } from '#start/configuration_check'

/** Reports `error` as an entry point would, with stderr a terminal or not. */
async function report(error: unknown, { terminal }: { terminal: boolean }) {
  const stderr = process.stderr
  const write = stderr.write
  const isTTY = Object.getOwnPropertyDescriptor(stderr, 'isTTY')
  const exitCode = process.exitCode
  let printed = ''
  let prettyPrinted: unknown
  stderr.write = ((chunk: string) => ((printed += chunk), true)) as typeof stderr.write
  Object.defineProperty(stderr, 'isTTY', { value: terminal, configurable: true })
  try {
    await reportEntryPointFailure(error, async (pretty) => {
      prettyPrinted = pretty
    })
    return { printed, prettyPrinted, exitCode: process.exitCode }
  } finally {
    stderr.write = write
    if (isTTY) Object.defineProperty(stderr, 'isTTY', isTTY)
    else delete (stderr as { isTTY?: boolean }).isTTY
    process.exitCode = exitCode
  }
}

test.group('Entry point failures', () => {
  test('a configuration error is its lines alone, on a terminal too', async ({ assert }) => {
    const error = new ConfigurationError(['APP_KEY must be at least 32 characters'])
    for (const terminal of [false, true]) {
      const outcome = await report(error, { terminal })
      assert.equal(outcome.printed, 'configuration error: APP_KEY must be at least 32 characters\n')
      assert.isUndefined(outcome.prettyPrinted)
      assert.equal(outcome.exitCode, 1)
    }
  })

  test('an unexpected error off a terminal is its plain stack, without colour', async ({
    assert,
  }) => {
    const outcome = await report(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      terminal: false,
    })
    assert.match(outcome.printed, /^Error: connect ECONNREFUSED 127\.0\.0\.1:1\n\s+at /)
    assert.notInclude(outcome.printed, '\u001b')
    assert.isUndefined(outcome.prettyPrinted)
    assert.equal(outcome.exitCode, 1)
  })

  test('an unexpected error on a terminal is pretty printed', async ({ assert }) => {
    const error = new Error('connect ECONNREFUSED 127.0.0.1:1')
    const outcome = await report(error, { terminal: true })
    assert.strictEqual(outcome.prettyPrinted, error)
    assert.equal(outcome.printed, '')
    assert.equal(outcome.exitCode, 1)
  })
})
