/*
| app/validators/rules/integer_range.ts: the expression built from a bound accepts a
| canonical decimal integer exactly when it is from 1 to the bound.
*/
import { test } from '@japa/runner'
import fc from 'fast-check'
import { positiveIntegerUpTo } from '#validators/rules/integer_range'

const bound = fc.oneof(
  fc.integer({ min: 1, max: 1000 }),
  fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  fc.constantFrom(1, 9, 10, 99, 100, 65_535, Number.MAX_SAFE_INTEGER)
)

test.group('positiveIntegerUpTo', () => {
  test('accepts the canonical integers from 1 to the bound, and no other', ({ assert }) => {
    fc.assert(
      fc.property(bound, fc.bigInt({ min: 0n, max: 2n ** 60n }), (max, number) => {
        const expected = number >= 1n && number <= BigInt(max)
        assert.equal(positiveIntegerUpTo(max).test(String(number)), expected, `${number} ≤ ${max}`)
      }),
      { numRuns: 2000, seed: 37 }
    )
  })

  test('the bound itself and its neighbours', ({ assert }) => {
    fc.assert(
      fc.property(bound, (max) => {
        const rule = positiveIntegerUpTo(max)
        assert.isTrue(rule.test(String(max)))
        assert.isTrue(rule.test('1'))
        assert.isFalse(rule.test(String(BigInt(max) + 1n)))
        assert.isFalse(rule.test('0'))
      }),
      { numRuns: 500, seed: 38 }
    )
  })

  test('refuses signs, leading zeros, spaces and other spellings', ({ assert }) => {
    const rule = positiveIntegerUpTo(Number.MAX_SAFE_INTEGER)
    for (const value of ['', '01', '007', '+1', '-1', '1.0', '1e3', '0x10', ' 1', '1 ', '１']) {
      assert.isFalse(rule.test(value), JSON.stringify(value))
    }
  })

  test('refuses a bound that is not a positive safe integer', ({ assert }) => {
    for (const max of [0, -1, 1.5, 2 ** 53]) {
      assert.throws(() => positiveIntegerUpTo(max))
    }
  })
})
