/*
| app/validators/rules/route_ids.ts: the route id shapes (portal-api.md › Path IDs).
| Anything else does not match the route (404); a numeric id past PostgreSQL's
| bigint is cast to 404 NOT_FOUND instead of reaching a query.
*/
import { test } from '@japa/runner'
import ApiError from '#exceptions/api_error'
import { routeIds } from '#validators/rules/route_ids'

function matches(shape: { match: RegExp }, value: string) {
  return shape.match.test(value)
}

test.group('Route ids', () => {
  test('numeric: canonical positive decimals of 1-20 digits', ({ assert }) => {
    for (const value of ['1', '9', '10', '42', '9223372036854775807', '12345678901234567890']) {
      assert.isTrue(matches(routeIds.numeric, value), value)
    }
    for (const value of [
      '0',
      '01',
      '-1',
      '+1',
      '1.0',
      '1e3',
      ' 1',
      '1 ',
      'abc',
      '',
      '123456789012345678901',
      '１２',
    ]) {
      assert.isFalse(matches(routeIds.numeric, value), value)
    }
  })

  test('numeric: the cast keeps ids within bigint and throws NOT_FOUND past it', ({ assert }) => {
    assert.equal(routeIds.numeric.cast('1'), '1')
    assert.equal(routeIds.numeric.cast('9223372036854775807'), '9223372036854775807')
    for (const value of ['9223372036854775808', '12345678901234567890', '99999999999999999999']) {
      assert.throws(() => routeIds.numeric.cast(value), ApiError)
      try {
        routeIds.numeric.cast(value)
      } catch (error) {
        assert.equal((error as ApiError).status, 404)
        assert.equal((error as ApiError).errorCode, 'NOT_FOUND')
      }
    }
  })

  test('uuid: 8-4-4-4-12 hexadecimal', ({ assert }) => {
    for (const value of [
      '123e4567-e89b-12d3-a456-426614174000',
      '123E4567-E89B-12D3-A456-426614174000',
      '00000000-0000-0000-0000-000000000000',
    ]) {
      assert.isTrue(matches(routeIds.uuid, value), value)
    }
    for (const value of [
      '123e4567e89b12d3a456426614174000',
      '123e4567-e89b-12d3-a456-42661417400',
      '123e4567-e89b-12d3-a456-4266141740000',
      'g23e4567-e89b-12d3-a456-426614174000',
      '{123e4567-e89b-12d3-a456-426614174000}',
      '',
      '1',
    ]) {
      assert.isFalse(matches(routeIds.uuid, value), value)
    }
  })

  test('ulid: 26 upper-case Crockford characters starting 0-7', ({ assert }) => {
    for (const value of ['01ARZ3NDEKTSV4RRFFQ69G5FAV', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ']) {
      assert.isTrue(matches(routeIds.ulid, value), value)
    }
    for (const value of [
      '01arz3ndektsv4rrffq69g5fav',
      '81ARZ3NDEKTSV4RRFFQ69G5FAV',
      '01ARZ3NDEKTSV4RRFFQ69G5FA',
      '01ARZ3NDEKTSV4RRFFQ69G5FAVX',
      '01ARZ3NDEKTSV4RRFFQ69G5FAI',
      '01ARZ3NDEKTSV4RRFFQ69G5FAL',
      '01ARZ3NDEKTSV4RRFFQ69G5FAO',
      '01ARZ3NDEKTSV4RRFFQ69G5FAU',
      '',
    ]) {
      assert.isFalse(matches(routeIds.ulid, value), value)
    }
  })

  test('keyType: exactly authentication_token or secret_key', ({ assert }) => {
    assert.isTrue(matches(routeIds.keyType, 'authentication_token'))
    assert.isTrue(matches(routeIds.keyType, 'secret_key'))
    for (const value of [
      'Secret_key',
      'SECRET_KEY',
      'secret_key ',
      'secret-key',
      'authentication_tokens',
      'x_token',
      '',
    ]) {
      assert.isFalse(matches(routeIds.keyType, value), value)
    }
  })
})
