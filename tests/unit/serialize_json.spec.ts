/*
| app/platform/serialize_json.ts: response bodies are written with JSON.stringify, and
| what it cannot write (BigInt, circular references) as the framework's default did.
*/
import { test } from '@japa/runner'
import { safeStringify } from '@poppinss/utils/json'
import { DateTime } from 'luxon'
import { serializeJson } from '#platform/serialize_json'

test.group('serializeJson', () => {
  test('plain response data is written exactly as the framework default writes it', ({
    assert,
  }) => {
    const bodies = [
      { success: true, message: 'Success', data: null },
      {
        success: true,
        message: 'Success',
        data: [{ amount: '12.30', note: 'é "quoted" \u2028', at: DateTime.utc(2026, 1, 2) }],
        meta: { current_page: 1, per_page: 25, total: 1, last_page: 1 },
      },
      { data: { skipped: undefined, nested: [undefined, null, Number.NaN] } },
    ]
    for (const body of bodies) assert.equal(serializeJson(body), safeStringify(body))
  })

  test('a BigInt is written as a string and a circular reference is left out, as before', ({
    assert,
  }) => {
    const circular: Record<string, unknown> = { id: 1 }
    circular.self = circular
    assert.equal(serializeJson({ count: 12n }), '{"count":"12"}')
    assert.equal(serializeJson(circular), safeStringify(circular))
    assert.equal(serializeJson(circular), '{"id":1}')
  })
})
