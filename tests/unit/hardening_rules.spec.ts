/*
| Pure rules of issue 9: well-formed request ids, the nesting bound of bodies, and
| which Redis failures are an outage (503) rather than a bug.
*/
import { test } from '@japa/runner'
import { isWellFormedRequestId } from '#http/request_id'
import { MAX_BODY_DEPTH, nestedDeeperThan } from '#validators/rules/body_depth'
import { isRedisUnavailable } from '#exceptions/redis_unavailable'

function nested(depth: number): unknown {
  let value: unknown = 1
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { a: value }
  return value
}

test.group('isWellFormedRequestId', () => {
  test('1-64 characters of [A-Za-z0-9._-] only', ({ assert }) => {
    for (const id of ['a', 'A-b_c.9', 'x'.repeat(64), crypto.randomUUID()]) {
      assert.isTrue(isWellFormedRequestId(id), id)
    }
    for (const id of ['', 'x'.repeat(65), 'a b', 'a,b', 'é', 'a\nb', undefined, ['a'], 1]) {
      assert.isFalse(isWellFormedRequestId(id), String(id))
    }
  })
})

test.group('nestedDeeperThan', () => {
  test('measures nesting of objects and arrays, scalars are depth 0', ({ assert }) => {
    assert.isFalse(nestedDeeperThan('text'))
    assert.isFalse(nestedDeeperThan(nested(MAX_BODY_DEPTH)))
    assert.isTrue(nestedDeeperThan(nested(MAX_BODY_DEPTH + 1)))
    assert.isTrue(nestedDeeperThan({ ok: 1, deep: nested(MAX_BODY_DEPTH) }))
  })

  test('does not recurse: a million levels are measured without overflowing the stack', ({
    assert,
  }) => {
    assert.isTrue(nestedDeeperThan(nested(1_000_000)))
  })
})

test.group('isRedisUnavailable', () => {
  test('outage errors of ioredis', ({ assert }) => {
    const maxRetries = Object.assign(
      new Error('Reached the max retries per request limit (which is 1).'),
      {
        name: 'MaxRetriesPerRequestError',
      }
    )
    for (const error of [
      maxRetries,
      new Error('Command timed out'),
      new Error('Connection is closed.'),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      new Error('wrapped', { cause: new Error('Command timed out') }),
    ]) {
      assert.isTrue(isRedisUnavailable(error), error.message)
    }
  })

  test('anything else is not an outage', ({ assert }) => {
    for (const error of [new Error('WRONGTYPE Operation'), new TypeError('x'), null, 'text']) {
      assert.isFalse(isRedisUnavailable(error), String(error))
    }
  })
})
