/*
| W3C Trace Context in the logs, so a request's lines are found from the caller's trace:
| every log line written while a request is handled carries `trace_id` and `span_id`
| (config/logger.ts adds them to each line).
|
| - Tracing on (start/tracing.ts): the ids of the active OpenTelemetry span, which is
|   the request's server span (continuing the caller's `traceparent`) or a span within
|   it, such as a mail's.
| - Tracing off: nothing of OpenTelemetry runs, and the request gets ids the same way
|   here: a valid `traceparent`'s trace id is continued under a new span id; without
|   one, a new trace id. A malformed `traceparent` is ignored and a new trace started,
|   as the W3C Trace Context recommendation says; it is never an error.
|   The ids are made on the request's first log line, so a request that logs nothing
|   pays nothing.
*/
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { isSpanContextValid, trace } from '@opentelemetry/api'
import { HttpContext } from '@adonisjs/core/http'

export interface TraceFields {
  trace_id: string
  span_id: string
}

// Version 00 is exactly this; a later version may append `-` and more fields.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/
const ZERO_TRACE_ID = '0'.repeat(32)
const ZERO_SPAN_ID = '0'.repeat(16)

/** The trace id of a valid `traceparent` header, or null (absent, repeated or malformed). */
export function continuedTraceId(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null
  const match = TRACEPARENT.exec(header)
  if (!match) return null
  const [, version, traceId, parentId, , rest] = match
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null
  if (traceId === ZERO_TRACE_ID || parentId === ZERO_SPAN_ID) return null
  return traceId!
}

/**
 * A request's own ids when tracing is off: the caller's trace continued, or a new one.
 * The random digits are version-4 UUIDs' (Node draws them from a cached pool; a
 * randomBytes() call per id was a measurable share of a request's CPU): a trace id is
 * one without its dashes, a span id the last 8 bytes of one (62 random bits).
 */
export function requestTraceFields(traceparent: string | string[] | undefined): TraceFields {
  const uuid = randomUUID()
  return {
    trace_id: continuedTraceId(traceparent) ?? randomUUID().replaceAll('-', ''),
    span_id: uuid.slice(19, 23) + uuid.slice(24),
  }
}

// Kept on the Node request: made once per request, gone with it.
const FIELDS = Symbol('traceFields')

/**
 * `trace_id` and `span_id` for a log line written now; none outside a request or trace.
 * A new object every time: pino merges the line's own fields into it.
 */
export function currentTraceFields(): TraceFields | Record<string, never> {
  const spanContext = trace.getActiveSpan()?.spanContext()
  if (spanContext && isSpanContextValid(spanContext)) {
    return { trace_id: spanContext.traceId, span_id: spanContext.spanId }
  }
  const ctx = HttpContext.get()
  if (!ctx) return {}
  const request = ctx.request.request as IncomingMessage & { [FIELDS]?: TraceFields }
  request[FIELDS] ??= requestTraceFields(request.headers.traceparent)
  return { ...request[FIELDS] }
}

/**
 * With tracing on, names the request's server span after its route
 * (`GET /api/v1/portal/me`), as the HTTP semantic conventions ask; the HTTP
 * instrumentation knows only the method.
 */
export function nameRequestSpan(ctx: HttpContext) {
  const pattern = ctx.route?.pattern
  const span = pattern ? trace.getActiveSpan() : undefined
  if (!span) return
  span.setAttribute('http.route', pattern!)
  span.updateName(`${ctx.request.method()} ${pattern}`)
}
