/*
| start/node_environment.ts: NODE_ENV when it is unset, by entry point.
*/
import { test } from '@japa/runner'
import { defaultNodeEnvironment } from '#start/node_environment'

test.group('NODE_ENV when unset', () => {
  test('the TypeScript sources of a checkout run as development', ({ assert }) => {
    assert.equal(defaultNodeEnvironment('file:///srv/checkout/bin/server.ts'), 'development')
    assert.equal(defaultNodeEnvironment('file:///srv/checkout/bin/console.ts'), 'development')
    // A loader may add a query to the URL (hot reloading).
    assert.equal(defaultNodeEnvironment('file:///srv/checkout/bin/server.ts?v=2'), 'development')
  })

  test('the compiled build runs as production', ({ assert }) => {
    assert.equal(defaultNodeEnvironment('file:///srv/app/build/bin/server.js'), 'production')
    assert.equal(defaultNodeEnvironment('file:///srv/app/bin/console.js'), 'production')
  })
})
