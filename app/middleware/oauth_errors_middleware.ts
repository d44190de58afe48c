import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import ApiError from '#exceptions/api_error'
import OAuthError from '#exceptions/oauth_error'

/**
 * POST /oauth/token answers every failure in OAuth form (RFC 6749 §5.2), never the
 * Portal envelope: OAuthError as such; the token throttle as 429 `rate_limited`
 * with Retry-After; body parser refusals (size, encoding, malformed) as
 * `invalid_request`. Anything else is left to the exception handler (500).
 */
export default class OAuthErrorsMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    try {
      await next()
    } catch (error) {
      const oauthError = this.toOAuthError(error)
      if (!oauthError) throw error
      ctx.response.header('Cache-Control', 'no-store')
      ctx.response.header('Pragma', 'no-cache')
      for (const [name, value] of Object.entries(oauthError.headers)) {
        ctx.response.header(name, value)
      }
      ctx.response
        .status(oauthError.status)
        .send({ error: oauthError.code, error_description: oauthError.description })
    }
  }

  private toOAuthError(error: unknown): OAuthError | null {
    if (error instanceof OAuthError) return error
    if (error instanceof ApiError && error.status === 429) {
      return new OAuthError(
        'rate_limited',
        'Too many token requests. Try again later.',
        429,
        error.headers ?? {}
      )
    }
    const status = (error as { status?: unknown } | null)?.status
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return OAuthError.invalidRequest('The request body could not be read.')
    }
    return null
  }
}
