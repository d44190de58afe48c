/*
| The `clientError` listener of app/http/client_error.ts on a stand-in socket: the
| status of each parser refusal Node reports, and when nothing may be written.
*/
import { test } from '@japa/runner'
import { onClientError } from '#http/client_error'

function fakeSocket(options: { writable?: boolean; headersSent?: boolean } = {}) {
  const socket = {
    writable: options.writable ?? true,
    _httpMessage: options.headersSent === undefined ? null : { headersSent: options.headersSent },
    written: [] as string[],
    destroyed: false,
    write(chunk: string) {
      socket.written.push(chunk)
      return true
    },
    destroy() {
      socket.destroyed = true
    },
  }
  return socket
}

function refusal(code: string) {
  return Object.assign(new Error('refused'), { code })
}

function envelopeOf(response: string) {
  const [head, body] = response.split('\r\n\r\n')
  return { statusLine: head.split('\r\n')[0], head, envelope: JSON.parse(body) }
}

test.group('Parser refusals (clientError)', () => {
  test('{code} answers {statusLine} with {errorCode}')
    .with([
      {
        code: 'HPE_INVALID_METHOD',
        statusLine: 'HTTP/1.1 400 Bad Request',
        errorCode: 'BAD_REQUEST',
      },
      {
        code: 'HPE_HEADER_OVERFLOW',
        statusLine: 'HTTP/1.1 431 Request Header Fields Too Large',
        errorCode: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      },
      {
        code: 'ERR_HTTP_REQUEST_TIMEOUT',
        statusLine: 'HTTP/1.1 408 Request Timeout',
        errorCode: 'REQUEST_TIMEOUT',
      },
      {
        code: 'HPE_CHUNK_EXTENSIONS_OVERFLOW',
        statusLine: 'HTTP/1.1 413 Payload Too Large',
        errorCode: 'PAYLOAD_TOO_LARGE',
      },
    ])
    .run(({ assert }, { code, statusLine, errorCode }) => {
      const socket = fakeSocket({ headersSent: false })
      onClientError(refusal(code), socket as any)
      assert.lengthOf(socket.written, 1)
      const response = envelopeOf(socket.written[0])
      assert.equal(response.statusLine, statusLine)
      assert.include(response.head, '\r\nContent-Type: application/json; charset=utf-8\r\n')
      assert.include(response.head, '\r\nCache-Control: no-store\r\n')
      assert.include(response.head, '\r\nConnection: close')
      const body = socket.written[0].split('\r\n\r\n')[1]
      assert.include(response.head, `\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`)
      assert.equal(response.envelope.success, false)
      assert.equal(response.envelope.error_code, errorCode)
      assert.isTrue(socket.destroyed)
    })

  test('nothing is written on {what}; the socket is destroyed')
    .with([
      { what: 'a reset connection', code: 'ECONNRESET', socket: {} },
      {
        what: 'a socket no longer writable',
        code: 'HPE_INVALID_METHOD',
        socket: { writable: false },
      },
      {
        what: 'a response already started',
        code: 'HPE_INVALID_METHOD',
        socket: { headersSent: true },
      },
    ])
    .run(({ assert }, { code, socket: options }) => {
      const socket = fakeSocket(options)
      onClientError(refusal(code), socket as any)
      assert.deepEqual(socket.written, [])
      assert.isTrue(socket.destroyed)
    })
})
