/*
| Request ids. Every request's id is the service's own, generated per request: it is
| `request_id` in the logs and in audit records, and the `X-Request-Id` of the
| response. A caller's X-Request-Id never becomes it (anyone could otherwise file
| their request under another's id and forge audit correlation). It is kept beside
| it as `caller_request_id` (request logs, audit metadata) when well formed:
| 1-64 characters of [A-Za-z0-9._-]. Anything else (too long, other characters,
| repeated headers) is dropped, so no header value can fail the write of an audit
| record or a log line.
*/
import type { IncomingMessage } from 'node:http'

const WELL_FORMED = /^[A-Za-z0-9._-]{1,64}$/

export function isWellFormedRequestId(value: unknown): value is string {
  return typeof value === 'string' && WELL_FORMED.test(value)
}

// Kept with the Node request: set once by the request context middleware, gone with it.
const callerRequestIds = new WeakMap<IncomingMessage, string>()

/**
 * Takes the caller's X-Request-Id off `request`, so the framework generates the
 * service's own id, and keeps it (when well formed) as the caller's. Returns it, or
 * null when the caller sent none or a malformed one.
 */
export function takeCallerRequestId(request: IncomingMessage): string | null {
  const sent = request.headers['x-request-id']
  if (sent === undefined) return null
  delete request.headers['x-request-id']
  if (!isWellFormedRequestId(sent)) return null
  callerRequestIds.set(request, sent)
  return sent
}

/** The well-formed X-Request-Id the caller sent with `request`, if any. */
export function callerRequestIdOf(request: IncomingMessage): string | null {
  return callerRequestIds.get(request) ?? null
}
