import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'

/**
 * A cache policy of the whole request (app/http/cache_policy.ts: credential, key,
 * member and team-list responses), set before anything can refuse the request, so
 * errors carry it too. Its headers come from the route's stack, at registration.
 */
export default class PrivateCacheMiddleware {
  async handle(ctx: HttpContext, next: NextFn, headers: [string, string][]) {
    for (const [name, value] of headers) ctx.response.header(name, value)
    return next()
  }
}
