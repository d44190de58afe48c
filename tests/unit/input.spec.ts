/*
| app/validators/rules/input.ts and input_text.ts: central trimming (passwords and key values untouched),
| strict endpoints (unlisted fields rejected on their own name), non-object bodies, and
| one 422 naming every field that fails (cross-field rules included).
*/
import { test } from '@japa/runner'
import vine from '@vinejs/vine'
import ApiError from '#exceptions/api_error'
import { defineInput, NO_BODY, validateInput } from '#validators/rules/input'
import { trimStrings, UNTRIMMED_FIELDS } from '#validators/rules/input_text'

/** The field errors of a failed validation (fails the test when it passes). */
async function fieldErrorsOf(promise: Promise<unknown>) {
  try {
    await promise
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) return error.fieldErrors ?? {}
    throw error
  }
  throw new Error('expected a 422 VALIDATION_ERROR')
}

test.group('trimStrings', () => {
  test('trims strings at every depth', ({ assert }) => {
    assert.deepEqual(
      trimStrings({ name: '  Ana  ', nested: { city: '\tManila\n' }, list: [' a ', ' b'] }),
      { name: 'Ana', nested: { city: 'Manila' }, list: ['a', 'b'] }
    )
  })

  test('leaves password fields and integration key values untrimmed', ({ assert }) => {
    assert.sameMembers(
      [...UNTRIMMED_FIELDS],
      ['password', 'password_confirmation', 'current_password', 'value']
    )
    const input = {
      password: ' p ',
      password_confirmation: ' p ',
      current_password: '\tp\n',
      value: '  key  ',
      label: ' label ',
    }
    assert.deepEqual(trimStrings(input), { ...input, label: 'label' })
  })

  test('leaves non-strings as they are', ({ assert }) => {
    const input = { a: 1, b: true, c: null, d: [1, null], e: { f: 2.5 } }
    assert.deepEqual(trimStrings(input), input)
    assert.equal(trimStrings(' x '), 'x')
    assert.isNull(trimStrings(null))
  })

  test('keeps a __proto__ key an own field, never a prototype', ({ assert }) => {
    const trimmed = trimStrings(JSON.parse('{"__proto__": {"role": "administrator"}}')) as any
    assert.isUndefined(trimmed.role)
    assert.equal(Object.getPrototypeOf(trimmed), Object.prototype)
    assert.include(Object.keys(trimmed), '__proto__')
  })
})

test.group('validateInput', () => {
  const strict = defineInput(
    { name: vine.string().minLength(1).maxLength(10), password: vine.string().minLength(6) },
    { strict: true }
  )
  const lenient = defineInput({ name: vine.string().minLength(1) }, { strict: false })

  test('returns validated data with strings trimmed except passwords', async ({ assert }) => {
    const data = await validateInput({ name: '  Ana ', password: '  secret  ' }, strict)
    assert.deepEqual(data, { name: 'Ana', password: '  secret  ' })
  })

  test('a strict endpoint rejects each unlisted field on its own name', async ({ assert }) => {
    const errors = await fieldErrorsOf(
      validateInput({ name: 'Ana', password: 'secret1', role: 1, is_active: true }, strict)
    )
    assert.sameMembers(Object.keys(errors), ['role', 'is_active'])
    assert.isNotEmpty(errors.role)
  })

  test('unlisted fields and validator errors are reported together', async ({ assert }) => {
    const errors = await fieldErrorsOf(validateInput({ name: '', extra: 'x' }, strict))
    assert.sameMembers(Object.keys(errors), ['name', 'password', 'extra'])
  })

  test('a strict endpoint rejects an unlisted __proto__ key and takes nothing from it', async ({
    assert,
  }) => {
    const raw = JSON.parse('{"__proto__": {"name": "Injected", "password": "secret1"}}')
    const errors = await fieldErrorsOf(validateInput(raw, strict))
    assert.include(Object.keys(errors), '__proto__')
    assert.property(errors, 'name')
    assert.property(errors, 'password')
  })

  test('a lenient endpoint ignores unlisted fields and drops them', async ({ assert }) => {
    const data = await validateInput({ name: ' Ana ', role: 'administrator' }, lenient)
    assert.deepEqual(data, { name: 'Ana' })
  })

  test('an empty, null or absent body is an empty object', async ({ assert }) => {
    for (const raw of [undefined, null, '']) {
      assert.deepEqual(await validateInput(raw, NO_BODY), {})
      assert.property(await fieldErrorsOf(validateInput(raw, lenient)), 'name')
    }
  })

  test('a body that is not a JSON object is a 422 on `body`', async ({ assert }) => {
    for (const raw of [[], [{ name: 'Ana' }], 'text', 42, true]) {
      const errors = await fieldErrorsOf(validateInput(raw, lenient))
      assert.deepEqual(Object.keys(errors), ['body'])
    }
  })

  test('NO_BODY rejects any field', async ({ assert }) => {
    const errors = await fieldErrorsOf(validateInput({ anything: null }, NO_BODY))
    assert.deepEqual(Object.keys(errors), ['anything'])
  })

  test('a NUL character in a listed field is a field error', async ({ assert }) => {
    const errors = await fieldErrorsOf(
      validateInput({ name: 'A\u0000', password: 'secret1' }, strict)
    )
    assert.deepEqual(Object.keys(errors), ['name'])
    const ignored = await validateInput({ name: 'Ana', other: 'x\u0000' }, lenient)
    assert.deepEqual(ignored, { name: 'Ana' })
  })

  test('a lone UTF-16 surrogate in a listed field is a field error, even under an email rule', async ({
    assert,
  }) => {
    const withEmail = defineInput({ email: vine.string().email() }, { strict: true })
    for (const email of ['\ud800', 'a@\udc00.test', 'x\ud83d@example.test']) {
      const errors = await fieldErrorsOf(validateInput({ email }, withEmail))
      assert.deepEqual(Object.keys(errors), ['email'], JSON.stringify(email))
    }
    const paired = await validateInput({ name: 'Ana 💳', password: 'secret1' }, strict)
    assert.deepEqual(paired, { name: 'Ana 💳', password: 'secret1' })
  })

  test('hostile values never escape as anything but a 422', async ({ assert }) => {
    const hostile: unknown[] = [
      { name: 12 },
      { name: null },
      { name: ['a'] },
      { name: { toString: 'x' } },
      { name: 'x'.repeat(100_000) },
      { name: '💳'.repeat(11) },
      { name: 99999999999999999999999n.toString(), constructor: { prototype: {} } },
    ]
    for (const raw of hostile) {
      const errors = await fieldErrorsOf(validateInput(raw, strict))
      assert.isNotEmpty(Object.keys(errors))
    }
  })
})

test.group('validateInput: every field that fails', () => {
  // `low` <= `high`, a rule across two fields.
  const range = defineInput(
    {
      low: vine.number({ strict: true }),
      high: vine.number({ strict: true }),
      label: vine.string().minLength(3),
    },
    {
      strict: true,
      crossField: {
        reads: ['low', 'high'],
        check(values, errors) {
          if (values.low !== undefined && values.high !== undefined && values.low > values.high) {
            ;(errors.high ??= []).push('The high field must be at least low.')
          }
        },
      },
    }
  )

  test('a cross-field rule is checked beside another field that fails', async ({ assert }) => {
    const errors = await fieldErrorsOf(validateInput({ low: 5, high: 1, label: 'x' }, range))
    assert.deepEqual(errors.high, ['The high field must be at least low.'])
    assert.sameMembers(Object.keys(errors), ['high', 'label'])
  })

  test('a cross-field rule sees only the fields that passed their own rules', async ({
    assert,
  }) => {
    const errors = await fieldErrorsOf(validateInput({ low: 'five', high: 1, label: 'abc' }, range))
    assert.deepEqual(Object.keys(errors), ['low'])
    const passed = await validateInput({ low: 1, high: 5, label: 'abc' }, range)
    assert.deepEqual(passed, { low: 1, high: 5, label: 'abc' })
  })

  test('text that is not text hides no other field error', async ({ assert }) => {
    const errors = await fieldErrorsOf(validateInput({ low: 5, high: 1, label: 'a\u0000b' }, range))
    assert.deepEqual(errors, {
      label: ['The label field must not contain a NUL character or an unpaired UTF-16 surrogate.'],
      high: ['The high field must be at least low.'],
    })
  })
})
