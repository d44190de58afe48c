import { test } from '@japa/runner'
import { ownOrigins, publicBaseUrl } from '#support/service_url'

test.group('APP_URL outside production follows HOST and PORT', () => {
  test('development and test derive it from the listen address when APP_URL is unset', ({
    assert,
  }) => {
    for (const environment of ['development', 'test'] as const) {
      assert.equal(publicBaseUrl({ environment }), 'http://localhost:3333')
      assert.equal(publicBaseUrl({ environment, port: 3633 }), 'http://localhost:3633')
      assert.equal(
        publicBaseUrl({ environment, host: '0.0.0.0', port: 3633 }),
        'http://localhost:3633'
      )
      assert.equal(publicBaseUrl({ environment, host: '::', port: 3633 }), 'http://localhost:3633')
      assert.equal(
        publicBaseUrl({ environment, host: '127.0.0.1', port: 3334 }),
        'http://127.0.0.1:3334'
      )
      assert.equal(publicBaseUrl({ environment, host: '::1', port: 3334 }), 'http://[::1]:3334')
      assert.equal(
        publicBaseUrl({ environment, host: 'dev.internal', port: 8080 }),
        'http://dev.internal:8080'
      )
    }
  })

  test('a set APP_URL wins everywhere, without its trailing slash', ({ assert }) => {
    for (const environment of ['development', 'test', 'production'] as const) {
      assert.equal(
        publicBaseUrl({ environment, appUrl: 'https://api.example/', host: '0.0.0.0', port: 3633 }),
        'https://api.example'
      )
    }
  })

  test('production does not derive it: unset APP_URL keeps the documented default', ({
    assert,
  }) => {
    assert.equal(
      publicBaseUrl({ environment: 'production', host: '0.0.0.0', port: 3633 }),
      'http://localhost:3333'
    )
  })
})

test.group("The service's own origins (pages such as /docs)", () => {
  test('a wildcard or loopback listen address is reached under every loopback name', ({
    assert,
  }) => {
    const loopback = ['http://localhost:3633', 'http://127.0.0.1:3633', 'http://[::1]:3633']
    for (const host of [undefined, '0.0.0.0', '::', '127.0.0.1', 'localhost', '::1']) {
      assert.sameMembers(ownOrigins({ environment: 'development', host, port: 3633 }), loopback)
    }
    assert.sameMembers(ownOrigins({ environment: 'test', host: '127.0.0.1', port: 3334 }), [
      'http://localhost:3334',
      'http://127.0.0.1:3334',
      'http://[::1]:3334',
    ])
  })

  test("another host is its own name; APP_URL's origin is added", ({ assert }) => {
    assert.sameMembers(
      ownOrigins({
        environment: 'development',
        host: '10.0.0.5',
        port: 3633,
        appUrl: 'https://dev.example/base/',
      }),
      ['http://10.0.0.5:3633', 'https://dev.example']
    )
    // The default port of the scheme is not written, as a browser's Origin does not.
    assert.sameMembers(ownOrigins({ environment: 'development', host: 'dev.internal', port: 80 }), [
      'http://dev.internal',
    ])
  })

  test('production has none', ({ assert }) => {
    assert.deepEqual(
      ownOrigins({ environment: 'production', appUrl: 'https://api.example', port: 3333 }),
      []
    )
  })
})
