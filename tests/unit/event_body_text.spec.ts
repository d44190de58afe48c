/*
| app/services/collections/import/event_body_text.ts: the line's own text of each event's
| body, as JSON.parse reads the line (last key wins), for any JSON the line may hold.
*/
import { test } from '@japa/runner'
import fc from 'fast-check'
import { eventBodyTexts, eventBodyTextsOf } from '#services/collections/import/event_body_text'

test.group('Event body text of an import line', () => {
  test('keeps the characters exactly: big integers, exponents, trailing zeros, spacing', ({
    assert,
  }) => {
    const body = '{ "n": 12345678901234567890, "e": 1e400, "d": 1.10, "z": -0,\n "a": [ 1 ,2 ] }'
    const line = `{"merchant_id": 1, "events": [{"kind": "x", "body": ${body}}]}`
    assert.deepEqual(eventBodyTexts(line), [body])
  })

  test('duplicate keys: the last events and the last body, as JSON.parse keeps them', ({
    assert,
  }) => {
    const line =
      '{"events": [{"body": 1}], "x": {"events": [{"body": 9}]},' +
      ' "events": [{"body": {"a":1}, "body": {"a":2, "a":3}}, {"kind": "no body"}, 5]}'
    assert.deepEqual(eventBodyTexts(line), ['{"a":2, "a":3}', undefined, undefined])
  })

  test('strings with escaped quotes, backslashes and brackets do not end a value early', ({
    assert,
  }) => {
    const body = '{"q": "a \\"}\\" ]", "b": "\\\\", "c": "\\\\\\"["}'
    const line = `{"events": [{"body": ${body}, "kind": "k"}], "t": "\\"events\\""}`
    assert.deepEqual(eventBodyTexts(line), [body])
    assert.deepEqual(JSON.parse(eventBodyTexts(line)[0]!), JSON.parse(line).events[0].body)
  })

  test('keys written with escapes are read as JSON.parse reads them', ({ assert }) => {
    const line = '{"\\u0065vents": [{"b\\u006fdy": "x"}]}'
    assert.deepEqual(eventBodyTexts(line), ['"x"'])
  })

  test('a body nested 100,000 deep is found without recursion', ({ assert }) => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    const line = `{"events": [{"body": ${deep}}]}`
    assert.deepEqual(eventBodyTexts(line), [deep])
  })

  test('a line in JSON.stringify form gives the same texts from its parsed values', ({
    assert,
  }) => {
    const canonical = JSON.stringify({ events: [{ body: { a: [1, 'x'] } }, { kind: 1 }, 7] })
    assert.deepEqual(eventBodyTextsOf(canonical, JSON.parse(canonical)), [
      '{"a":[1,"x"]}',
      undefined,
      undefined,
    ])
    const spaced = '{"events": [{"body": {"a": 1.10}}]}'
    assert.deepEqual(eventBodyTextsOf(spaced, JSON.parse(spaced)), ['{"a": 1.10}'])
    const deep = `{"events":[{"body":${'['.repeat(20_000)}${']'.repeat(20_000)}}]}`
    assert.deepEqual(eventBodyTextsOf(deep, JSON.parse(deep)), [
      '['.repeat(20_000) + ']'.repeat(20_000),
    ])
  })

  test('no events, or events that are not an array: nothing', ({ assert }) => {
    assert.deepEqual(eventBodyTexts('{"merchant_id": 1}'), [])
    assert.deepEqual(eventBodyTexts('{"events": {"body": 1}}'), [])
  })

  test('property: for any JSON bodies, the text found parses to the body JSON.parse gives', ({
    assert,
  }) => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.jsonValue(), { nil: undefined }), { maxLength: 5 }),
        fc.constantFrom('', ' ', '\n  '),
        (bodies, space) => {
          const events = bodies.map((body, index) =>
            body === undefined
              ? `{"kind":${index}}`
              : `{${space}"kind":${index},${space}"body":${space}${JSON.stringify(body, null, space ? 1 : 0)}${space}}`
          )
          const line = `{${space}"events":${space}[${events.join(`,${space}`)}]}`
          const texts = eventBodyTexts(line)
          assert.deepEqual(eventBodyTextsOf(line, JSON.parse(line)), texts)
          const parsed = JSON.parse(line).events as Array<{ body?: unknown }>
          assert.lengthOf(texts, parsed.length)
          texts.forEach((text, index) => {
            if (bodies[index] === undefined) assert.isUndefined(text)
            else assert.deepEqual(JSON.parse(text!), parsed[index].body)
          })
        }
      ),
      { numRuns: 300 }
    )
  })
})
