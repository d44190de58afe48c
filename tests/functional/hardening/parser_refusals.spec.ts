/*
| Requests that Node's HTTP parser refuses before the application runs (a raw non-ASCII
| byte in the request line, a request line or headers over Node's ~16 KB limit) still
| get decisions.md §1's JSON envelope (app/http/client_error.ts), and the server keeps
| answering. Raw bytes over a socket: an HTTP client would refuse to send them.
*/
import { test } from '@japa/runner'
import { route } from '#tests/helpers/routes'
import { sendRaw } from '#tests/helpers/raw_http'

const REFUSALS = [
  {
    what: 'a raw non-ASCII byte in the request line',
    request: Buffer.concat([
      Buffer.from(`GET ${route('profile.show')}?q=`),
      Buffer.from([0xef, 0xbc, 0x92]),
      Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
    ]),
    statusLine: 'HTTP/1.1 400 Bad Request',
    errorCode: 'BAD_REQUEST',
    echoed: [Buffer.from([0xef, 0xbc, 0x92]), Buffer.from('?q=')],
  },
  {
    what: 'headers over 16 KB',
    request: Buffer.from(
      `GET ${route('profile.show')} HTTP/1.1\r\nHost: x\r\nX-Filler: ${'z'.repeat(20_000)}\r\n\r\n`
    ),
    statusLine: 'HTTP/1.1 431 Request Header Fields Too Large',
    errorCode: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    echoed: [Buffer.from('zzzz'), Buffer.from('X-Filler')],
  },
  {
    what: 'a request line over 16 KB',
    request: Buffer.from(
      `GET ${route('profile.show')}?q=${'y'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`
    ),
    statusLine: 'HTTP/1.1 431 Request Header Fields Too Large',
    errorCode: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    echoed: [Buffer.from('yyyy')],
  },
]

test.group('Hardening › parser refusals', () => {
  test("a request Node's HTTP parser refuses still gets the JSON error envelope: {what}")
    .with(REFUSALS)
    .run(async ({ assert, client }, refusal) => {
      const response = await sendRaw(refusal.request)

      assert.equal(response.statusLine, refusal.statusLine)
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(response.headers['cache-control'], 'no-store')
      assert.equal(response.headers['connection'], 'close')
      assert.equal(Number(response.headers['content-length']), response.body.length)
      const envelope = JSON.parse(response.body.toString('utf8'))
      assert.deepEqual(Object.keys(envelope).sort(), ['error_code', 'message', 'success'])
      assert.isFalse(envelope.success)
      assert.equal(envelope.error_code, refusal.errorCode)
      assert.isString(envelope.message)
      assert.isAbove(envelope.message.length, 0)
      for (const fragment of refusal.echoed) {
        assert.isFalse(response.body.includes(fragment), 'the refused input is echoed')
      }

      // The server keeps answering ordinary requests.
      const live = await client.get(route('health.live'))
      live.assertStatus(200)
      const me = await client.get(route('profile.show'))
      me.assertStatus(401)
      assert.isFalse(me.body().success)
    })
})
