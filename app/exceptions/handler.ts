/*
| Turns every failure into decisions.md §1's envelope:
|   { success: false, message, error_code, errors? }
| No stack, SQL or secret ever reaches a client.
*/
import app from '@adonisjs/core/services/app'
import router from '@adonisjs/core/services/router'
import { type HttpContext, ExceptionHandler } from '@adonisjs/core/http'
import ApiError, { type FieldErrors } from '#exceptions/api_error'
import { isDatabaseUnavailable } from '#support/database_errors'
import { isRedisUnavailable } from '#exceptions/redis_unavailable'
import { isStoreUnavailable } from '#exceptions/store_unavailable'
import OAuthError, { OAUTH_TOKEN_PATH } from '#exceptions/oauth_error'
import { ClientLeft } from '#platform/client_left'
import { headersOf, OAUTH_TOKEN_CACHE } from '#http/cache_policy'

/** The token endpoint (start/routes.ts): its failures take RFC 6749 §5.2 form. */
const OAUTH_TOKEN_ROUTE = 'oauth.token'

/**
 * Whether the request is for the token endpoint: its route, or its path when no route
 * matched (another method: 405), so that every failure there is in OAuth form,
 * limiter and database outages included.
 */
function isTokenEndpoint(ctx: HttpContext) {
  return ctx.route?.name === OAUTH_TOKEN_ROUTE || OAUTH_TOKEN_PATH.test(ctx.request.url())
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/** File errors that are the server's problem, not a missing file (stay 500). */
const SERVER_SIDE_FILE_ERRORS = new Set(['EACCES', 'EPERM', 'EMFILE', 'ENFILE', 'EIO', 'ENOSPC'])

function rootCauseCode(error: unknown): string | undefined {
  let current = error as { cause?: unknown; code?: unknown } | undefined
  for (let depth = 0; depth < 8 && current?.cause; depth++) current = current.cause as any
  return typeof current?.code === 'string' ? current.code : undefined
}

/** How a body read fails when the client has gone: body parser, raw-body, Node. */
const BODY_READ_ABORTS = new Set([
  'E_REQUEST_ABORTED',
  'ECONNRESET',
  'request.aborted',
  'stream.not.readable',
])

/** The client closed its connection before its body had arrived, and reading it failed. */
function clientAborted(error: unknown, ctx: HttpContext) {
  const err = error as { code?: unknown; type?: unknown } | undefined
  return (
    ctx.request.request.readableAborted &&
    (BODY_READ_ABORTS.has(String(err?.code)) || BODY_READ_ABORTS.has(String(err?.type)))
  )
}

/**
 * A gzip/deflate or brotli body that does not decompress: zlib's errors carry a `Z_*`
 * code (Z_DATA_ERROR, Z_BUF_ERROR), brotli's an `ERR__ERROR_*` one. Malformed input,
 * answered like a malformed JSON body (decisions.md §1: never a 500).
 */
function isCorruptCompressedBody(error: unknown) {
  const code = String((error as { code?: unknown } | undefined)?.code ?? '')
  return /^(?:Z_[A-Z_]+|ERR__ERROR_[A-Z0-9_]+)$/.test(code)
}

export default class HttpExceptionHandler extends ExceptionHandler {
  protected debug = false

  async handle(error: unknown, ctx: HttpContext) {
    if (isTokenEndpoint(ctx)) {
      const oauthError =
        error instanceof OAuthError ? error : OAuthError.fromApiError(this.toApiError(error, ctx))
      return this.renderOAuth(oauthError, ctx)
    }
    const apiError = this.toApiError(error, ctx)
    const { response } = ctx
    if (!response.getHeader('Cache-Control')) response.header('Cache-Control', 'no-store')
    for (const [name, value] of Object.entries(apiError.headers ?? {})) response.header(name, value)
    response.status(apiError.status).send({
      success: false,
      message: apiError.message,
      error_code: apiError.errorCode,
      ...(apiError.status === 422 && apiError.fieldErrors ? { errors: apiError.fieldErrors } : {}),
    })
  }

  private renderOAuth(error: OAuthError, { response }: HttpContext) {
    for (const [name, value] of headersOf(OAUTH_TOKEN_CACHE)) response.header(name, value)
    for (const [name, value] of Object.entries(error.headers)) response.header(name, value)
    response.status(error.status).send({ error: error.code, error_description: error.description })
  }

  async report(error: unknown, ctx: HttpContext) {
    if (error instanceof OAuthError) return
    if (clientAborted(error, ctx)) {
      // The client went away mid-body (a cancelled upload, a load generator stopping):
      // nobody receives the answer and nothing is wrong with the service.
      ctx.logger.info('request aborted by the client')
      return
    }
    if (error instanceof ClientLeft) {
      // Its client left while its work waited for its turn, so the work was dropped.
      ctx.logger.info(`request abandoned by the client: ${error.dropped} was dropped`)
      return
    }
    const apiError = this.toApiError(error, ctx)
    if (apiError.status < 500) return
    if (apiError.shed) {
      // Load shed by a bound, by design: the bound's metrics count it. Not logged at the
      // default level: a flood would otherwise write a line per refused request.
      ctx.logger.debug(`request shed: ${apiError.message}`)
      return
    }
    // The kind only: driver errors can quote SQL parameters. An unavailable
    // dependency is expected operational noise (warn, no stack); anything else is a bug.
    const err = error as { name?: string; code?: string; stack?: string }
    if (apiError.status === 503) {
      ctx.logger.warn({ err: { name: err?.name, code: err?.code } }, 'dependency unavailable')
      return
    }
    ctx.logger.error(
      {
        err: { name: err?.name, code: err?.code, stack: app.inProduction ? undefined : err?.stack },
      },
      'unexpected failure'
    )
  }

  private toApiError(error: unknown, ctx: HttpContext): ApiError {
    if (error instanceof ApiError) return error
    if (error instanceof ClientLeft) {
      return ApiError.serviceUnavailable('The work was dropped: its client has gone.')
    }
    const err = (error ?? {}) as {
      code?: string
      status?: number
      messages?: unknown
      message?: string
    }

    switch (err.code) {
      case 'E_VALIDATION_ERROR':
        return ApiError.validation(this.fieldErrorsOf(err.messages))
      case 'E_ROUTE_NOT_FOUND':
        return this.routeNotFound(ctx)
      case 'E_REQUEST_ENTITY_TOO_LARGE':
        return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is too large.')
      case 'E_ENCODING_UNSUPPORTED':
        return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported.')
      case 'E_TOO_MANY_REQUESTS':
        return ApiError.rateLimited(Number((err as any).response?.availableIn ?? 60))
      case 'E_UNAUTHORIZED_ACCESS':
        return new ApiError('ACCESS_TOKEN_INVALID', 'The access token is invalid or expired.')
      case 'E_INVALID_MULTIPART_REQUEST':
        return ApiError.field('file', 'The multipart body is malformed.')
      case 'E_INVALID_KEY':
      case 'E_UNALLOWED_CHARACTERS':
      case 'E_PATH_TRAVERSAL_DETECTED':
        // A served file's path (drive) that cannot name a file: no such resource.
        return ApiError.notFound()
      case 'E_CANNOT_SERVE_FILE':
        // A served file (drive) that is missing or whose path names no file: 404.
        if (!SERVER_SIDE_FILE_ERRORS.has(rootCauseCode(error) ?? '')) return ApiError.notFound()
    }
    if (err.status === 415 && /^Unsupported Content-Encoding/.test(err.message ?? '')) {
      // An encoding the body inflater does not know (thrown before raw-body reads it).
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported.')
    }
    if (isCorruptCompressedBody(error)) {
      return ApiError.field('body', 'The request body could not be decompressed.')
    }
    if ((error as { name?: string })?.name === 'BadRequestError' && err.status === 400) {
      // The multipart parser's refusals (no boundary, malformed parts).
      return ApiError.field('body', 'The multipart body is malformed.')
    }
    if (error instanceof SyntaxError && err.status === 400) {
      return ApiError.field('body', 'The request body is not valid JSON.')
    }
    if (err.status === 422 && /Invalid JSON/.test(err.message ?? '')) {
      return ApiError.field('body', 'The request body must be a JSON object.')
    }
    if (clientAborted(error, ctx)) {
      return ApiError.field('body', 'The request body was not received completely.')
    }
    if (isDatabaseUnavailable(error) || isRedisUnavailable(error) || isStoreUnavailable(error)) {
      return ApiError.serviceUnavailable()
    }
    return new ApiError('SERVER_ERROR', 'An unexpected error occurred.')
  }

  private routeNotFound(ctx: HttpContext): ApiError {
    const url = ctx.request.url()
    const method = ctx.request.method()
    const allowed = METHODS.filter(
      (other) =>
        other !== method && router.match(url, other, ctx.request.parsedUrl.shouldDecodeParam)
    )
    if (allowed.length > 0) {
      return new ApiError(
        'METHOD_NOT_ALLOWED',
        'The method is not allowed for this path.',
        undefined,
        {
          Allow: allowed.join(', '),
        }
      )
    }
    return ApiError.notFound()
  }

  private fieldErrorsOf(messages: unknown): FieldErrors {
    const errors: FieldErrors = {}
    for (const item of Array.isArray(messages) ? messages : []) {
      const field = typeof item?.field === 'string' && item.field !== '' ? item.field : 'body'
      ;(errors[field] ??= []).push(String(item?.message ?? 'The value is invalid.'))
    }
    return Object.keys(errors).length > 0 ? errors : { body: ['The given data was invalid.'] }
  }
}
