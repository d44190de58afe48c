import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import ApiError from '#exceptions/api_error'
import type { RoleName } from '#models/user'

/** Admin routes: a developer gets 403 FORBIDDEN before any body or field validation. */
export default class RoleMiddleware {
  async handle(ctx: HttpContext, next: NextFn, options: { role: RoleName }) {
    if (ctx.actor?.role !== options.role) throw ApiError.forbidden()
    return next()
  }
}
