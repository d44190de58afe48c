/*
| Websites stored before the website rule (migration 1010,
| app/services/merchants/stored_websites.ts): each is rewritten as the URI it stands
| for or cleared, after which the merchant's answers match their schema again.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { MERCHANT } from '#tests/helpers/merchant'
import { componentSchema, documentCheck } from '#tests/helpers/document_schemas'
import { repairStoredWebsites, repairedWebsite } from '#services/merchants/stored_websites'

// What the earlier rule let in, and what each becomes.
const STORED: Array<[string, string | null]> = [
  ['hTTps://ĜŁĂ', 'https://xn--0da5c0f/'],
  ['https://x/%zz', 'https://x/%25zz'],
  [
    'https://exämple.com/päth?q=ü#frägment',
    'https://xn--exmple-cua.com/p%C3%A4th?q=%C3%BC#fr%C3%A4gment',
  ],
  ['https://example.com/a|b^c?x={y}#a#b', 'https://example.com/a%7Cb%5Ec?x=%7By%7D#a%23b'],
  ['https://EXAMPLE.com:443/a b', 'https://example.com/a%20b'],
  ['https://a_b.example/', null],
  ['https://[::1]/', null],
  ['https://999.1.1.1/', null],
]

test.group('Websites stored before the website rule', (group) => {
  group.each.setup(() => resetState())

  test('each becomes the URI it stands for, or null', ({ assert }) => {
    const answered = documentCheck(componentSchema('Merchant').properties.website)
    for (const [stored, expected] of STORED) {
      const repaired = repairedWebsite(stored)
      assert.equal(repaired, expected, stored)
      assert.isTrue(answered(repaired), `${stored} → ${repaired}`)
    }
  })

  test('a value the rule accepts is kept as stored', ({ assert }) => {
    for (const kept of [
      'https://Example.com',
      'hTTps://example.com:8443/a/%C3%A4?b#c',
      'https://x',
    ]) {
      assert.equal(repairedWebsite(kept), kept)
    }
  })

  test('after the repair, GET /portal/merchant answers every stored website within its schema', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const answered = documentCheck(componentSchema('Merchant').properties.website)
    for (const [stored, expected] of STORED) {
      await db.from('merchants').where('id', admin.merchant.id).update({ website: stored })
      assert.equal(await repairStoredWebsites(db), 1, stored)
      // The response check of tests/bootstrap.ts validates the whole answer as well.
      const response = await client.get(MERCHANT()).header('Authorization', admin.bearer)
      response.assertStatus(200)
      assert.equal(response.body().data.website, expected, stored)
      assert.isTrue(answered(response.body().data.website), stored)
    }
    assert.equal(await repairStoredWebsites(db), 0)
  })
})
