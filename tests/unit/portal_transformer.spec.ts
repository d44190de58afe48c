import { test } from '@japa/runner'
import { PortalTransformer } from '#transformers/portal_transformer'

class PairTransformer extends PortalTransformer<{ left: number; right: number }> {
  toObject() {
    return { sum: this.resource.left + this.resource.right }
  }
}

test.group('PortalTransformer', () => {
  test('transform shapes one resource, or each of a list in order, as plain objects', ({
    assert,
  }) => {
    const one = PairTransformer.transform({ left: 1, right: 2 })
    const many = PairTransformer.transform([
      { left: 1, right: 2 },
      { left: 3, right: 4 },
    ])
    assert.deepEqual(one, { sum: 3 })
    assert.deepEqual(many, [{ sum: 3 }, { sum: 7 }])
    assert.deepEqual(PairTransformer.transform([]), [])
    assert.equal(Object.getPrototypeOf(one), Object.prototype)
    assert.equal(JSON.stringify(many), '[{"sum":3},{"sum":7}]')
  })

  test('transform captures no stack trace per call', ({ assert }) => {
    const capture = Error.captureStackTrace
    let captured = 0
    Error.captureStackTrace = (...args: Parameters<typeof capture>) => {
      captured++
      return capture(...args)
    }
    try {
      PairTransformer.transform({ left: 1, right: 2 })
      PairTransformer.transform([{ left: 1, right: 2 }])
    } finally {
      Error.captureStackTrace = capture
    }
    assert.equal(captured, 0)
  })

  test('an undefined resource fails instead of answering an empty shape', ({ assert }) => {
    assert.throws(() => PairTransformer.transform(undefined as any))
  })
})
