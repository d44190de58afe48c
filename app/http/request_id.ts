/*
| Request ids. A client's X-Request-Id is kept only when well formed:
| 1-64 characters of [A-Za-z0-9._-]. Anything else (too long, other characters,
| repeated headers) is replaced by a generated id, so no header value can fail the
| write of an audit record (audit_logs.request_id is 64 characters) or a log line.
*/
const WELL_FORMED = /^[A-Za-z0-9._-]{1,64}$/

export function isWellFormedRequestId(value: unknown): value is string {
  return typeof value === 'string' && WELL_FORMED.test(value)
}
