import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import ApiError from '#exceptions/api_error'
import User, { roleName } from '#models/user'
import { PORTAL_ABILITY } from '#auth/portal_access_tokens'
import { enforceLimit } from '#limits/enforce_limit'
import { portalActor } from '#auth/actor'
import { bearerCredential, bearerRefusals } from '#auth/bearer'

// Errors are built only when thrown: an Error captures its stack trace when
// constructed, which the profile showed on every request while it was built eagerly.
const { unauthenticated, invalidToken } = bearerRefusals('portal')

/**
 * Portal PAT authentication (Authentication rules 2-3), decided before the body is
 * parsed: Bearer PAT only; then an active user with a Portal role in an active
 * merchant, a still-eligible issuing application, and the `merchant-portal` ability.
 * Token, user, merchant and application are read in one statement
 * (PortalAccessTokensProvider.resolve); the checks run in the contract's order.
 */
export default class PortalAuthMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const credential = bearerCredential(ctx.request.header('authorization'))
    if (credential.kind === 'absent') return this.refuse(ctx, unauthenticated)
    if (credential.kind === 'malformed') return this.refuse(ctx, invalidToken)

    const resolved = await User.accessTokens.resolve(credential.token)
    if (!resolved || !resolved.user) return this.refuse(ctx, invalidToken)
    const { token, user, merchant } = resolved

    // A verified token whose account may not use the Portal is refused, and the refusal
    // counts against its user's API limit like any other rejected request.
    const refuse = async (error: () => ApiError): Promise<never> => {
      await enforceLimit('api', `user:${user.id}`)
      throw error()
    }
    const role = roleName(user.role)
    if (!user.isActive || !role || !merchant || !merchant.isActive) {
      return refuse(
        () => new ApiError('MERCHANT_USER_NOT_AUTHORIZED', 'This account cannot use the Portal.')
      )
    }
    if (!token.portalClientId || !resolved.applicationActive) {
      return refuse(
        () =>
          new ApiError(
            'ECOSYSTEM_APPLICATION_NOT_AUTHORIZED',
            'The issuing application is not authorized.'
          )
      )
    }
    if (!token.allows(PORTAL_ABILITY)) {
      return refuse(
        () =>
          new ApiError(
            'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
            'The access token lacks the required scope.'
          )
      )
    }

    ctx.actor = portalActor(ctx, { user, merchant, role, token })
    return next()
  }

  /**
   * Unauthenticated requests count against the API-wide limit of their IP (the
   * contract's "resolved user ID or IP"), so guessing tokens is throttled too.
   */
  private async refuse(ctx: HttpContext, error: () => ApiError): Promise<never> {
    await enforceLimit('api', `ip:${ctx.request.ip()}`)
    throw error()
  }
}
