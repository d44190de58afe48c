import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'

/** Credential, key, member and team-list responses: `Cache-Control: no-store, private`. */
export default class PrivateCacheMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    ctx.response.header('Cache-Control', 'no-store, private')
    return next()
  }
}
