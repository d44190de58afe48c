/*
| The logo markup scan reads raw bytes exactly as the regular expression it replaced
| read their latin1 text (portal-api.md › Merchant and logo: no markup rides along).
*/
import { test } from '@japa/runner'
import fc from 'fast-check'
import { carriesMarkup } from '#services/merchants/logo_markup'

const REFERENCE = /<(?:script|html|body|iframe|object|embed|svg)[\s>/]|<\?php|<!doctype/i

const fragments = [
  '<',
  '<script',
  '<SCRIPT',
  '<ScRiPt',
  '<html',
  '<HTML>',
  '<body/',
  '<iframe\t',
  '<object\n',
  '<embed\r',
  '<svg\f',
  '<svg\v',
  '<svg\u00a0',
  '<svg ',
  '<svgx',
  '<scripts',
  '<?php',
  '<?PHP',
  '<? php',
  '<!doctype',
  '<!DOCTYPE',
  '<!docty',
  'script>',
  '<<svg>',
  '\u00ff',
  '\u00b5',
]

const latin1 = (text: string) => Buffer.from(text, 'latin1')

test.group('Logo markup scan', () => {
  test('finds markup wherever the reference expression does, in any case', ({ assert }) => {
    for (const text of [
      '<svg>',
      'xx<SVG/>',
      'a<Body\u00a0',
      'GIF89a<?php echo',
      '\x00<!DocType html',
    ]) {
      assert.isTrue(carriesMarkup(latin1(text)), text)
    }
    for (const text of ['', '<', '<svgx', '<scripted', '<?ph', '<!doctyp', 'svg>', '<\u00a0svg>']) {
      assert.isFalse(carriesMarkup(latin1(text)), text)
    }
  })

  test('agrees with the reference expression on arbitrary bytes and near misses', ({ assert }) => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 64 }).map((array) => Buffer.from(array)),
      fc
        .array(fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 3 })), {
          maxLength: 8,
        })
        .map((parts) => latin1(parts.join('')))
    )
    let withMarkup = 0
    const agrees = fc.property(bytes, (buffer) => {
      const expected = REFERENCE.test(buffer.toString('latin1'))
      if (expected) withMarkup++
      return carriesMarkup(buffer) === expected
    })
    assert.doesNotThrow(() => fc.assert(agrees, { numRuns: 5000 }))
    assert.isAbove(withMarkup, 100, 'the generator reaches markup')
  })
})
