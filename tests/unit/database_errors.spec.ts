/*
| app/exceptions/database_unavailable.ts: which failures mean "the database is not
| there" (503 SERVICE_UNAVAILABLE) rather than a bug (500).
*/
import { test } from '@japa/runner'
import { isDatabaseUnavailable, onUniqueViolation } from '#support/database_errors'

function withCode(code: string, message = 'failure') {
  return Object.assign(new Error(message), { code })
}

test.group('isDatabaseUnavailable', () => {
  test('network failures reaching the database', ({ assert }) => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']) {
      assert.isTrue(isDatabaseUnavailable(withCode(code)), code)
    }
  })

  test('SQLSTATEs of an unavailable database', ({ assert }) => {
    const codes = [
      '08006', // connection failure
      '08001', // cannot establish connection
      '53300', // too many connections
      '57P01', // admin shutdown (terminated backend)
      '57P03', // cannot connect now
      '57014', // statement timeout
      '55000', // database not accepting connections
      '3D000', // database missing
    ]
    for (const code of codes) assert.isTrue(isDatabaseUnavailable(withCode(code)), code)
  })

  test('pool timeouts and terminated connections', ({ assert }) => {
    const timeout = Object.assign(new Error('Knex: Timeout acquiring a connection.'), {
      name: 'KnexTimeoutError',
    })
    assert.isTrue(isDatabaseUnavailable(timeout))
    assert.isTrue(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')))
    assert.isTrue(isDatabaseUnavailable(new Error('the database system is shutting down')))
    assert.isTrue(isDatabaseUnavailable(new Error('wrapped', { cause: withCode('ECONNREFUSED') })))
  })

  test('bugs and bad input are not an outage', ({ assert }) => {
    for (const code of [
      '23505',
      '23503',
      '42P01',
      '42703',
      '22021',
      '22001',
      'E_VALIDATION_ERROR',
    ]) {
      assert.isFalse(isDatabaseUnavailable(withCode(code)), code)
    }
    for (const value of [
      new Error('boom'),
      new TypeError('x is undefined'),
      null,
      undefined,
      'ECONNREFUSED',
      42,
      {},
    ]) {
      assert.isFalse(isDatabaseUnavailable(value), String(value))
    }
  })

  test('cyclic causes end without a stack overflow', ({ assert }) => {
    const first = new Error('first') as Error & { cause?: unknown }
    const second = new Error('second', { cause: first })
    first.cause = second
    assert.isFalse(isDatabaseUnavailable(first))
    const self = new Error('self') as Error & { cause?: unknown }
    self.cause = self
    assert.isFalse(isDatabaseUnavailable(self))
  })
})

test.group('onUniqueViolation', () => {
  test('a unique violation becomes the conflict; other errors and results pass through', async ({
    assert,
  }) => {
    const conflict = () => new Error('conflict')
    assert.equal(await onUniqueViolation(async () => 42, conflict), 42)
    await assert.rejects(
      () =>
        onUniqueViolation(async () => {
          throw withCode('23505')
        }, conflict),
      'conflict'
    )
    await assert.rejects(
      () =>
        onUniqueViolation(async () => {
          throw withCode('23503', 'foreign key')
        }, conflict),
      'foreign key'
    )
  })
})
