import { test } from '@japa/runner'
import { normalizeStatus } from '#models/transaction_status'

test.group('Transaction status normalization (portal-api.md › Transaction)', () => {
  test('a recognized payment_status wins, case-insensitively', ({ assert }) => {
    assert.equal(normalizeStatus('paid', 'R'), 'PAID')
    assert.equal(normalizeStatus('Rejected', 'S'), 'REJECTED')
    assert.equal(normalizeStatus('PENDING', 'S'), 'PENDING')
  })

  test('otherwise legacy S is PAID, R is REJECTED, anything else PENDING', ({ assert }) => {
    assert.equal(normalizeStatus(null, 'S'), 'PAID')
    assert.equal(normalizeStatus('settled', 'R'), 'REJECTED')
    assert.equal(normalizeStatus(undefined, 'X'), 'PENDING')
    assert.equal(normalizeStatus(null, null), 'PENDING')
    assert.equal(normalizeStatus('', ''), 'PENDING')
  })
})
