import { test } from '@japa/runner'
import { BaseSerializer, Collection, Item } from '@adonisjs/core/transformers'
import { PortalTransformer } from '#transformers/portal_transformer'

class PairTransformer extends PortalTransformer<{ left: number; right: number }> {
  toObject() {
    return { sum: this.resource.left + this.resource.right }
  }
}

class PlainSerializer extends BaseSerializer<{}> {
  wrap = undefined
  definePaginationMetaData(metaData: unknown) {
    return metaData as Record<string, unknown>
  }
}

test.group('PortalTransformer', () => {
  test('transform builds items and collections that serialize as the framework does', async ({
    assert,
  }) => {
    const serializer = new PlainSerializer()
    const item = PairTransformer.transform({ left: 1, right: 2 })
    const collection = PairTransformer.transform([
      { left: 1, right: 2 },
      { left: 3, right: 4 },
    ])
    assert.instanceOf(item, Item)
    assert.instanceOf(collection, Collection)
    assert.deepEqual(await serializer.serializeWithoutWrapping(item), { sum: 3 })
    assert.deepEqual(await serializer.serializeWithoutWrapping(collection), [
      { sum: 3 },
      { sum: 7 },
    ])
    assert.isNull(PairTransformer.transform(null))
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

  test('an undefined resource still fails as the framework reports it', async ({ assert }) => {
    const serializer = new PlainSerializer()
    const item = PairTransformer.transform(undefined as any)
    await assert.rejects(async () => {
      await serializer.serializeWithoutWrapping(item as any)
    })
  })
})
