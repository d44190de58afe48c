import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import ApiError from '#exceptions/api_error'
import { authenticatePortalClient } from '#services/portal_client_service'
import { enforceLimit } from '#limits/limits'

/**
 * App-authenticated routes (login, invitation acceptance): any failure is 401
 * ECOSYSTEM_CLIENT_UNAUTHENTICATED, decided before the body is parsed.
 *
 * The request is counted against the API-wide per-IP limit BEFORE the client secret
 * is hashed (issue 9 › 4): every verification costs a scrypt, so failed application
 * authentication must be throttled like any other request, not only successful ones.
 */
export default class AppClientAuthMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    await enforceLimit('api', `ip:${ctx.request.ip()}`)
    const client = await authenticatePortalClient({
      authorization: ctx.request.header('authorization'),
      serviceApplication: ctx.request.header('x-service-application'),
      origin: ctx.request.header('origin'),
    })
    if (!client) {
      throw new ApiError(
        401,
        'ECOSYSTEM_CLIENT_UNAUTHENTICATED',
        'The application could not be authenticated.'
      )
    }
    ctx.portalClient = client
    return next()
  }
}
