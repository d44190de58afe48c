import { test } from '@japa/runner'
import { normalizeIdentity } from '#support/identity'

test.group('normalizeIdentity', () => {
  test('lowercases as JavaScript does, İ and final Σ included', ({ assert }) => {
    assert.equal(normalizeIdentity('İnci'), 'i̇nci')
    assert.equal(normalizeIdentity('ΟΔΟΣ'), 'οδος')
    assert.equal(normalizeIdentity('Someone@Example.TEST'), 'someone@example.test')
  })

  test('composes characters (NFC) so equal-looking spellings compare equal', ({ assert }) => {
    assert.equal(normalizeIdentity('Jose\u0301'), normalizeIdentity('JOS\u00c9'))
  })
})
