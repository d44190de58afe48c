import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { callerRequestIdOf } from '#http/request_id'
import { envelopeBareErrorBody } from '#http/error_envelope_net'
import { nameRequestSpan } from '#support/trace_context'
import { recordHttpRequest } from '#support/operator_metrics'
import { DEFAULT_CACHE, headersOf } from '#http/cache_policy'

const [[CACHE_HEADER, NO_STORE]] = headersOf(DEFAULT_CACHE)

/**
 * Every response is JSON and uncacheable unless a route narrows it further
 * (`no-store, private`). One log line per request, with its request id (the
 * service's own; a caller's is `caller_request_id`) and path only: query strings can carry one-time proofs. Its `trace_id` and `span_id`
 * come from the logger (config/logger.ts), like those of every line of the request.
 * Every request is counted and timed when its response closes (sent or aborted),
 * under its route name or pattern, never the raw path (app/support/operator_metrics.ts):
 * one listener here instead of the framework's request_completed event, which costs an
 * on-finished hook and an async emit per request.
 */
export default class RequestContextMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const startedAt = process.hrtime.bigint()
    ctx.response.response.once('close', () =>
      recordHttpRequest(
        ctx.route?.name ?? ctx.route?.pattern,
        ctx.request.method(),
        ctx.response.getStatus(),
        Number(process.hrtime.bigint() - startedAt) / 1e9
      )
    )
    ctx.request.request.headers.accept = 'application/json'
    ctx.response.header(CACHE_HEADER, NO_STORE)
    // The caller's X-Request-Id was taken off at the server (app/http/client_error.ts),
    // so the request id the framework named the logger after is the service's own.
    const callerRequestId = callerRequestIdOf(ctx.request.request)
    if (callerRequestId !== null) {
      ctx.logger = ctx.logger.child({ caller_request_id: callerRequestId })
    }
    const requestId = ctx.request.id()
    if (requestId) ctx.response.header('X-Request-Id', requestId)
    try {
      await next()
      envelopeBareErrorBody(ctx)
    } finally {
      nameRequestSpan(ctx)
      ctx.logger.info(
        {
          method: ctx.request.method(),
          path: ctx.request.url(),
          status: ctx.response.getStatus(),
          duration_ms: Number(process.hrtime.bigint() - startedAt) / 1e6,
        },
        'request completed'
      )
    }
  }
}
