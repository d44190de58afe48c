/*
| Refusals of Node's HTTP parser in the JSON envelope (decisions.md §1). Some requests
| never reach the application: a raw non-ASCII byte in the request line, a request line
| and headers over Node's header limit (~16 KB), a request not received within the
| server's request timeout. Node answers them itself with an empty, non-JSON body; the
| server's `clientError` listener answers them here instead, with the envelope and the
| code of the one status→code map (#http/error_envelope_net). The refused bytes are
| never echoed. The listener is installed on the Node server by every entry point that
| creates one: bin/server.ts and the test server (tests/bootstrap.ts).
|
| Receiving a request has a deadline of its own: REQUEST_TIMEOUT_SECONDS (default 120)
| for the whole of it, at most 60 s of which for the request line and headers. A client
| that trickles its body (a 2 MiB logo needs 17 KB/s) is answered 408 and closed, so a
| connection and its upload's file are not held for Node's default five minutes.
|
| An idle kept-alive connection is closed KEEP_ALIVE_TIMEOUT_SECONDS (default 5, Node's
| own) after its last answer, which announces it (`Keep-Alive: timeout=N`). A balancer
| that keeps idle connections longer than that, and does not read the announcement, now
| and then sends a request on a connection this server is closing, and its client gets a
| 502: set it above the balancer's idle timeout (docs/operations.md › Idle connections
| and the balancer).
*/
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { errorCodeFor } from '#http/error_envelope_net'
import { takeCallerRequestId } from '#http/request_id'
import { trackHandler } from '#http/handlers_in_flight'
import { capConnections } from '#http/connection_cap'
import { responseStarted } from '#platform/socket_response'
import settings from '#config/settings'

/** Node's own default for the request line and headers; less when the whole request has less. */
const HEADERS_TIMEOUT_MS = 60_000
/** How often Node looks for requests past their deadline (its default: 30 s). */
const DEADLINE_CHECK_MS = 5_000

const MESSAGES: Record<number, string> = {
  400: 'The request is not a valid HTTP request.',
  408: 'The request was not received in time.',
  413: 'The request body is too large.',
  431: 'The request line and headers are too large.',
}

/** The status of a parser refusal, as Node's own default answer picks it. */
function statusOf(error: NodeJS.ErrnoException): number {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 431
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 413
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 408
    default:
      return 400
  }
}

/** The complete HTTP/1.1 response for a refusal with `status`. */
export function clientErrorResponse(status: number): string {
  const body = JSON.stringify({
    success: false,
    message: MESSAGES[status] ?? MESSAGES[400],
    error_code: errorCodeFor(status),
  })
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    `Date: ${new Date().toUTCString()}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\n' +
    'Connection: close\r\n' +
    `\r\n${body}`
  )
}

/** The `clientError` listener: answer when nothing has been answered yet, then close. */
export function onClientError(error: NodeJS.ErrnoException, socket: Duplex) {
  // A response of an earlier request on this connection already started: another one
  // would corrupt it (Node's default checks the same).
  if (error.code !== 'ECONNRESET' && socket.writable && !responseStarted(socket)) {
    socket.write(clientErrorResponse(statusOf(error)))
  }
  socket.destroy()
}

/**
 * The Node HTTP server of the Portal API: `createServer` with JSON parser refusals, its
 * connections capped (#http/connection_cap).
 */
export function createPortalHttpServer(
  handler: (request: IncomingMessage, response: ServerResponse) => unknown
) {
  // The caller's X-Request-Id comes off before the framework sees the request: the
  // framework names the request (and its logger) after that header, or writes the id
  // it generates into it (app/http/request_id.ts says why ours is the service's own).
  const requestTimeout = settings.requestTimeoutSeconds() * 1000
  const options = {
    requestTimeout,
    keepAliveTimeout: settings.keepAliveTimeoutSeconds() * 1000,
    headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
    connectionsCheckingInterval: Math.min(DEADLINE_CHECK_MS, requestTimeout),
  }
  const server = createServer(options, (request, response) => {
    takeCallerRequestId(request)
    const result = handler(request, response)
    // A shutdown waits for the handler, even when its client has gone (#http/handlers_in_flight).
    trackHandler(result)
    return result
  }).on('clientError', onClientError)
  return capConnections(server)
}
