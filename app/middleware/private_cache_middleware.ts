import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'

/**
 * Credential, key, member and team-list responses: `Cache-Control: no-store, private`,
 * set before anything can refuse the request, so errors carry it too. A delivered
 * credential (`credential: true`, the consume route) also gets `max-age=0`,
 * `Pragma: no-cache` and `nosniff` (portal-api.md › Machine clients).
 */
export default class PrivateCacheMiddleware {
  async handle(ctx: HttpContext, next: NextFn, options: { credential?: boolean } = {}) {
    if (options.credential) {
      ctx.response.header('Cache-Control', 'no-store, private, max-age=0')
      ctx.response.header('Pragma', 'no-cache')
      ctx.response.header('X-Content-Type-Options', 'nosniff')
    } else {
      ctx.response.header('Cache-Control', 'no-store, private')
    }
    return next()
  }
}
