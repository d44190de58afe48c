/*
| app/support/log_redaction.ts, and the configured logger that runs it on every line
| and on a child logger's bindings: credentials are censored, nothing else changes.
*/
import { test } from '@japa/runner'
import { Logger } from '@adonisjs/core/logger'
import loggerConfig from '#config/logger'
import { CENSOR, SECRET_KEYS, redactSecrets } from '#support/log_redaction'

/** The application's logger writing its JSON lines here. */
function configuredLogger() {
  const lines: Array<Record<string, unknown>> = []
  const logger = new Logger({
    ...loggerConfig.loggers.app,
    level: 'info',
    transport: undefined,
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  } as any)
  return { logger, lines }
}

test.group('Log redaction', () => {
  test('every credential key is censored at the top and two levels down', ({ assert }) => {
    for (const key of SECRET_KEYS) {
      const logged = {
        [key]: 'top-secret',
        body: { [key]: 'nested-secret', kept: 1 },
        req: { headers: { [key]: 'header-secret', accept: 'json' } },
        list: [{ [key]: 'in-array' }],
      }
      assert.deepEqual(redactSecrets(logged), {
        [key]: CENSOR,
        body: { [key]: CENSOR, kept: 1 },
        req: { headers: { [key]: CENSOR, accept: 'json' } },
        list: [{ [key]: CENSOR }],
      })
    }
  })

  test('the logged object is never changed, and one without credentials is not copied', ({
    assert,
  }) => {
    const logged = { body: { password: 'p' }, status: 200 }
    redactSecrets(logged)
    assert.deepEqual(logged, { body: { password: 'p' }, status: 200 })
    const clean = { method: 'GET', path: '/health/live', err: { name: 'Error' } }
    assert.strictEqual(redactSecrets(clean), clean)
  })

  test('an error keeps its type, message and stack when a credential is censored', ({ assert }) => {
    const error = Object.assign(new TypeError('refused'), { token: 't' })
    const { err } = redactSecrets({ err: error })
    assert.instanceOf(err, TypeError)
    assert.equal(err.message, 'refused')
    assert.equal(err.stack, error.stack)
    assert.equal(err.token, CENSOR)
  })

  test('the configured logger censors lines and child bindings, and keeps the rest', ({
    assert,
  }) => {
    const { logger, lines } = configuredLogger()
    logger
      .child({ request_id: 'r-1', authorization: 'Bearer abc' })
      .info({ status: 200, body: { current_password: 'old', name: 'Ada' } }, 'request completed')
    assert.lengthOf(lines, 1)
    assert.include(lines[0], {
      request_id: 'r-1',
      authorization: CENSOR,
      status: 200,
      msg: 'request completed',
    })
    assert.deepEqual(lines[0]!.body, { current_password: CENSOR, name: 'Ada' })
    assert.notInclude(JSON.stringify(lines), 'Bearer abc')
  })
})
