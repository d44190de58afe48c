import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import ApiError from '#exceptions/api_error'
import { authenticatePortalClient } from '#auth/portal_clients'

// The challenge of RFC 7235 §3.1: the application authenticates with HTTP Basic.
const BASIC_CHALLENGE = 'Basic realm="portal", charset="UTF-8"'

/**
 * A request sent by a page's script (fetch, XHR: `Sec-Fetch-Mode` other than
 * `navigate`, a header scripts cannot set), such as "Try it out" on `/docs`. A Basic
 * challenge would make the browser hold the 401 and ask for a password in its own
 * dialog (headless: the request never ends) instead of handing it to the page.
 */
function fromPageScript(ctx: HttpContext) {
  const mode = ctx.request.header('sec-fetch-mode')
  return mode !== undefined && mode !== 'navigate'
}

/**
 * App-authenticated routes (login, invitation acceptance): any failure is 401
 * ECOSYSTEM_CLIENT_UNAUTHENTICATED, decided before the body is parsed, with a Basic
 * challenge unless a page's script sent it.
 */
export default class AppClientAuthMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const client = await authenticatePortalClient({
      authorization: ctx.request.header('authorization'),
      serviceApplication: ctx.request.header('x-service-application'),
      origin: ctx.request.header('origin'),
    })
    if (!client) {
      throw new ApiError(
        'ECOSYSTEM_CLIENT_UNAUTHENTICATED',
        'The application could not be authenticated.',
        undefined,
        fromPageScript(ctx) ? {} : { 'WWW-Authenticate': BASIC_CHALLENGE }
      )
    }
    ctx.portalClient = client
    return next()
  }
}
