import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import ApiError from '#exceptions/api_error'
import { authenticatePortalClient } from '#auth/portal_clients'

/**
 * App-authenticated routes (login, invitation acceptance): any failure is 401
 * ECOSYSTEM_CLIENT_UNAUTHENTICATED, decided before the body is parsed.
 */
export default class AppClientAuthMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const client = await authenticatePortalClient({
      authorization: ctx.request.header('authorization'),
      serviceApplication: ctx.request.header('x-service-application'),
      origin: ctx.request.header('origin'),
    })
    if (!client) {
      // The challenge of RFC 7235 §3.1: the application authenticates with HTTP Basic.
      throw new ApiError(
        401,
        'ECOSYSTEM_CLIENT_UNAUTHENTICATED',
        'The application could not be authenticated.',
        undefined,
        { 'WWW-Authenticate': 'Basic realm="portal", charset="UTF-8"' }
      )
    }
    ctx.portalClient = client
    return next()
  }
}
