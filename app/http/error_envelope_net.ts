/*
| A safety net for decisions.md §1: every Portal error is the JSON
| envelope, including refusals that third-party route handlers write themselves as
| plain text (the drive file server answers a bad `signature` with a text/plain 401
| "Access denied"). Errors thrown anywhere go through the exception handler; this only
| rewrites an error response whose body is a bare string. The status is kept.
*/
import type { HttpContext } from '@adonisjs/core/http'

const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
}

/**
 * The `error_code` of a status whose refusal carries no code of its own: the one
 * status→code map, also used for the refusals of Node's HTTP parser (#http/client_error).
 */
export function errorCodeFor(status: number): string {
  return CODES[status] ?? (status >= 500 ? 'SERVER_ERROR' : 'BAD_REQUEST')
}

const MESSAGES: Record<number, string> = {
  401: 'Access denied.',
  403: 'Access denied.',
  404: 'The requested resource was not found.',
}

export function envelopeBareErrorBody(ctx: HttpContext) {
  const status = ctx.response.getStatus()
  const content = ctx.response.content?.[0]
  if (status < 400 || typeof content !== 'string') return
  ctx.response.send({
    success: false,
    message:
      MESSAGES[status] ??
      (status >= 500 ? 'An unexpected error occurred.' : 'The request was refused.'),
    error_code: errorCodeFor(status),
  })
}
