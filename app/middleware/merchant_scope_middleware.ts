import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import ApiError from '#exceptions/api_error'
import { isPlainObject } from '#validators/rules/input'

/*
| The merchant scope of a Portal call comes from the PAT. A merchant selector that
| names another merchant is 403 MERCHANT_SCOPE_MISMATCH (before field validation);
| one naming the caller's own merchant is left to the endpoint's validation.
*/
const SELECTOR_FIELDS = ['merchant_id', 'merchant_reference_id', 'merchant']
const SELECTOR_HEADERS = ['x-merchant-id', 'x-merchant-reference-id']

export default class MerchantScopeMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const merchant = ctx.portal!.merchant
    const own = new Set([String(merchant.id), merchant.referenceId])
    const body = ctx.request.body()
    const supplied: unknown[] = [
      ...SELECTOR_HEADERS.map((name) => ctx.request.header(name)),
      ...SELECTOR_FIELDS.map((name) => ctx.request.qs()[name]),
      ...(isPlainObject(body) ? SELECTOR_FIELDS.map((name) => body[name]) : []),
    ].filter((value) => value !== undefined)
    for (const value of supplied) {
      const candidate = typeof value === 'object' && value !== null ? (value as any).id : value
      if (!own.has(String(candidate))) {
        throw new ApiError(
          403,
          'MERCHANT_SCOPE_MISMATCH',
          'The merchant does not match the authenticated merchant.'
        )
      }
    }
    return next()
  }
}
