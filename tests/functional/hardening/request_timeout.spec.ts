/*
| Receiving a request has a deadline (app/http/client_error.ts): a client that has not
| sent its whole request within REQUEST_TIMEOUT_SECONDS (the request line and headers,
| or the body after them) is answered 408 REQUEST_TIMEOUT in the JSON envelope and its
| connection closed, instead of holding it for Node's default five minutes. The service
| runs as its own process with a deadline of 1 s; nothing is timed: without the
| deadline, the connection outlives the test's own bound (REQUEST_MS) and the test fails.
*/
import { test } from '@japa/runner'
import { route } from '#tests/helpers/routes'
import { sendRaw } from '#tests/helpers/raw_http'
import { startProductionServer, type ServerProcess } from '#tests/helpers/server_process'

const UNFINISHED = [
  {
    what: 'headers never finished',
    request: `GET ${route('health.live')} HTTP/1.1\r\nHost: x\r\nX-Slow: `,
  },
  {
    // A public route: past its limit, it waits for the body it never gets.
    what: 'a body cut short after its headers',
    request:
      `POST ${route('auth.new_password')} HTTP/1.1\r\nHost: x\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"token": "',
  },
]

test.group('A request not received within REQUEST_TIMEOUT_SECONDS', (group) => {
  let server: ServerProcess
  group.setup(async () => {
    server = await startProductionServer({ REQUEST_TIMEOUT_SECONDS: '1' })
    return () => server.kill()
  })

  test('{what}: 408 REQUEST_TIMEOUT in the envelope, and the connection closed')
    .with(UNFINISHED)
    .run(async ({ assert }, { request }) => {
      const response = await sendRaw(Buffer.from(request), { port: server.port })
      assert.equal(response.statusLine, 'HTTP/1.1 408 Request Timeout')
      assert.equal(response.headers['connection'], 'close')
      assert.include(JSON.parse(response.body.toString()), {
        success: false,
        error_code: 'REQUEST_TIMEOUT',
      })
    })
    .timeout(120_000)

  test('a request sent in time is answered as usual', async ({ assert }) => {
    const response = await fetch(`${server.base}${route('health.live')}`)
    assert.equal(response.status, 200)
  })
})
