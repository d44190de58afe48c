import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { errors as authErrors } from '@adonisjs/auth'
import ApiError from '#exceptions/api_error'
import Merchant from '#models/merchant'
import PortalClient from '#models/portal_client'
import { roleName } from '#models/user'
import { PORTAL_ABILITY } from '#auth/portal_access_tokens'
import { enforceLimit } from '#limits/limits'
import { userActor } from '#auth/actor'

const BEARER = /^Bearer [A-Za-z0-9._~+/-]+=*$/i

/**
 * Portal PAT authentication (Authentication rules 2-3), decided before the body is
 * parsed: Bearer PAT only; then an active user with a Portal role in an active
 * merchant, a still-eligible issuing application, and the `merchant-portal` ability.
 */
export default class PortalAuthMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const authorization = ctx.request.header('authorization')
    if (authorization === undefined || authorization.trim() === '') {
      return this.refuse(ctx, new ApiError(401, 'UNAUTHENTICATED', 'Authentication is required.'))
    }
    const invalid = new ApiError(
      401,
      'ACCESS_TOKEN_INVALID',
      'The access token is invalid or expired.'
    )
    if (!BEARER.test(authorization)) return this.refuse(ctx, invalid)

    let user
    try {
      user = await ctx.auth.use('portal').authenticate()
    } catch (error) {
      // Only a failed verification is a bad token; a database outage stays a 503.
      if (error instanceof authErrors.E_UNAUTHORIZED_ACCESS) return this.refuse(ctx, invalid)
      throw error
    }
    const token = user.currentAccessToken!

    const role = roleName(user.role)
    const merchant = user.merchantId ? await Merchant.find(user.merchantId) : null
    if (!user.isActive || !role || !merchant || !merchant.isActive) {
      throw new ApiError(403, 'MERCHANT_USER_NOT_AUTHORIZED', 'This account cannot use the Portal.')
    }
    const application = token.portalClientId ? await PortalClient.find(token.portalClientId) : null
    if (!application || !application.isActive) {
      throw new ApiError(
        403,
        'ECOSYSTEM_APPLICATION_NOT_AUTHORIZED',
        'The issuing application is not authorized.'
      )
    }
    if (!token.allows(PORTAL_ABILITY)) {
      throw new ApiError(
        403,
        'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
        'The access token lacks the required scope.'
      )
    }

    ctx.portal = { user, merchant, role, token }
    ctx.actor = userActor(ctx, { id: user.id, merchantId: merchant.id }, role)
    return next()
  }

  /**
   * Unauthenticated requests count against the API-wide limit of their IP (the
   * contract's "resolved user ID or IP"), so guessing tokens is throttled too.
   */
  private async refuse(ctx: HttpContext, error: ApiError): Promise<never> {
    await enforceLimit('api', `ip:${ctx.request.ip()}`)
    throw error
  }
}
