/*
| Reading a boolean flag of an operator command (app/console/boolean_flags.ts): the
| documented forms only; anything else is refused without echoing the value.
*/
import { test } from '@japa/runner'
import { BooleanFlagError, readBooleanFlag } from '#console/boolean_flags'

test.group('readBooleanFlag', () => {
  test('absent stays absent; --x and --x=true are on; --no-x and --x=false are off', ({
    assert,
  }) => {
    assert.isUndefined(readBooleanFlag('dry-run', undefined))
    assert.isTrue(readBooleanFlag('dry-run', ''))
    assert.isTrue(readBooleanFlag('dry-run', 'true'))
    assert.isFalse(readBooleanFlag('dry-run', false))
    assert.isFalse(readBooleanFlag('dry-run', 'false'))
  })

  test('any other value is refused, naming the flag and its forms but not the value', ({
    assert,
  }) => {
    for (const value of ['1', '0', 'yes', 'no', 'TRUE', 'False', ' true', 's3cr3t']) {
      assert.throws(() => readBooleanFlag('dry-run', value), BooleanFlagError)
      try {
        readBooleanFlag('dry-run', value)
      } catch (error) {
        const message = (error as Error).message
        assert.include(message, '--dry-run=true')
        assert.include(message, '--no-dry-run')
        if (value.trim() !== 'true') assert.notInclude(message, `=${value}`)
      }
    }
  })

  test('the flag given twice is refused', ({ assert }) => {
    assert.throws(() => readBooleanFlag('dry-run', ['', 'false']), /given more than once/)
  })
})
