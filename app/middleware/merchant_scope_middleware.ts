import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
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
    const own = new Set([String(ctx.actor!.merchantId), ctx.portal!.merchant.referenceId])
    const body = ctx.request.body()
    const supplied: Array<[string, unknown]> = [
      ...SELECTOR_HEADERS.map((name) => [name, ctx.request.header(name)] as [string, unknown]),
      ...SELECTOR_FIELDS.map((name) => [name, ctx.request.qs()[name]] as [string, unknown]),
      ...(isPlainObject(body)
        ? SELECTOR_FIELDS.map((name) => [name, body[name]] as [string, unknown])
        : []),
    ].filter(([, value]) => value !== undefined)
    for (const [field, value] of supplied) {
      const isObject = isPlainObject(value)
      const candidate = isObject ? value.id : value
      // Only a string or a number can name a merchant; anything else (an object, an
      // array, a repeated query parameter) is a field error, never compared.
      if (typeof candidate !== 'string' && typeof candidate !== 'number') {
        throw ApiError.field(isObject ? `${field}.id` : field, 'The merchant selector is invalid.')
      }
      if (!own.has(String(candidate))) {
        throw new ApiError(
          'MERCHANT_SCOPE_MISMATCH',
          'The merchant does not match the authenticated merchant.'
        )
      }
    }
    return next()
  }
}
