import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import type { PortalActor } from '#auth/actor'
import ApiError from '#exceptions/api_error'
import { isPlainObject } from '#support/plain_object'

/*
| The merchant scope of a Portal call comes from the PAT. A merchant selector that
| names another merchant is 403 MERCHANT_SCOPE_MISMATCH (before field validation);
| one naming the caller's own merchant is left to the endpoint's validation.
*/
const SELECTOR_FIELDS = ['merchant_id', 'merchant_reference_id', 'merchant']
const SELECTOR_HEADERS = ['x-merchant-id', 'x-merchant-reference-id']

export default class MerchantScopeMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const actor = ctx.actor
    // Its stacks authenticate first; without an actor the stack itself is wrong.
    if (!actor) throw new Error('The merchant scope needs Portal authentication before it')
    // Headers, then the query string, then the body: the first bad selector answers.
    for (const name of SELECTOR_HEADERS) checkSelector(actor, name, ctx.request.header(name))
    const query = ctx.request.qs()
    for (const name of SELECTOR_FIELDS) checkSelector(actor, name, query[name])
    const body = ctx.request.body()
    if (isPlainObject(body)) {
      for (const name of SELECTOR_FIELDS) checkSelector(actor, name, body[name])
    }
    return next()
  }
}

/** A supplied selector must name the caller's own merchant, by id or reference. */
function checkSelector(actor: PortalActor, field: string, value: unknown) {
  if (value === undefined) return
  const isObject = isPlainObject(value)
  const candidate = isObject ? value.id : value
  // Only a string or a number can name a merchant; anything else (an object, an
  // array, a repeated query parameter) is a field error, never compared.
  if (typeof candidate !== 'string' && typeof candidate !== 'number') {
    throw ApiError.field(isObject ? `${field}.id` : field, 'The merchant selector is invalid.')
  }
  const named = String(candidate)
  if (named !== String(actor.merchantId) && named !== actor.session.merchant.referenceId) {
    throw new ApiError(
      'MERCHANT_SCOPE_MISMATCH',
      'The merchant does not match the authenticated merchant.'
    )
  }
}
