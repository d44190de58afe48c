/*
| The body depth bound (app/validators/rules/body_depth.ts) applied as the body parser
| sets the body.
*/
import type { HttpContext } from '@adonisjs/core/http'
import { ensureBodyDepth } from '#validators/rules/body_depth'

/**
 * Makes the body parser refuse a too deeply nested body as it is set, before the
 * framework deep-clones it (recursively) as the request's original input. Call
 * before running the body parser on `ctx`.
 */
export function guardBodyDepth(ctx: HttpContext) {
  const setInitialBody = ctx.request.setInitialBody.bind(ctx.request)
  ctx.request.setInitialBody = (body) => {
    ensureBodyDepth(body)
    setInitialBody(body)
  }
}
