/*
| A request whose path is not valid percent-encoding (`/%zz`, `/%C0%AF`, `/%`) never
| reaches the router: the framework rejects it before an HttpContext exists, and its
| default answer is a text/plain 400. Such a path names no resource, so it is answered
| like any unknown route (decisions.md §1): 404 NOT_FOUND in the JSON
| envelope, `Cache-Control: no-store`, with a generated request id.
*/
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

export function onBadUrl(_request: IncomingMessage, response: ServerResponse) {
  const body = JSON.stringify({
    success: false,
    message: 'The requested resource was not found.',
    error_code: 'NOT_FOUND',
  })
  response.writeHead(404, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Request-Id': randomUUID(),
  })
  response.end(body)
}
