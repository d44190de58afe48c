import { test } from '@japa/runner'
import { trustProxyFrom } from '#http/trusted_proxies'

test.group('TRUSTED_PROXIES', () => {
  test('unset or empty trusts no proxy: the socket address is the client', ({ assert }) => {
    for (const setting of [undefined, '', ' , ']) {
      const trust = trustProxyFrom(setting)
      assert.isFalse(trust('127.0.0.1', 0))
      assert.isFalse(trust('10.0.0.1', 0))
    }
  })

  test('listed proxies and ranges are trusted, others are not', ({ assert }) => {
    const trust = trustProxyFrom('loopback, 10.0.0.0/8')
    assert.isTrue(trust('127.0.0.1', 0))
    assert.isTrue(trust('10.20.30.40', 1))
    assert.isFalse(trust('192.168.1.1', 0))
  })
})
