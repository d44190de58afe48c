import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { DateTime } from 'luxon'
import { errors as authErrors } from '@adonisjs/auth'
import auth from '@adonisjs/auth/services/main'
import type { AccessToken } from '@adonisjs/auth/access_tokens'
import ApiError from '#exceptions/api_error'
import Merchant from '#models/merchant'
import MerchantOauthClient from '#models/merchant_oauth_client'
import type OauthClient from '#models/oauth_client'
import { machineApiEnabled } from '#auth/machine_access_tokens'
import { enforceLimit } from '#limits/enforce_limit'
import { bearerCredential, bearerRefusals } from '#auth/bearer'

// Built only when thrown (an Error captures its stack when constructed).
const MACHINE_REFUSALS = bearerRefusals('merchant-api')

const LAST_USED_RESOLUTION_SECONDS = 60

export interface MachineSession {
  client: OauthClient
  ownership: MerchantOauthClient
  merchant: Merchant
  token: AccessToken
}

declare module '@adonisjs/core/http' {
  interface HttpContext {
    /** Set by machine_auth_middleware on merchant integration API routes. */
    machine?: MachineSession
  }
}

/**
 * Merchant integration API authentication (portal-api.md › Authentication rule 7,
 * Machine token endpoint), decided before any body is read:
 * - a Bearer machine token (`mat_`) of the `machine` guard, valid and unexpired,
 *   else 401 (a Portal PAT never verifies here);
 * - MACHINE_API_ENABLED, else 503 MERCHANT_MACHINE_API_UNAVAILABLE;
 * - the OAuth client unrevoked and a machine client, its ownership active and
 *   unrevoked, its merchant active, its rotation deadline not reached, else 403
 *   CLIENT_MERCHANT_NOT_AUTHORIZED;
 * - the route's scope among the token's, else 403 INSUFFICIENT_SCOPE.
 * The ownership's last_used_at is written at most once a minute.
 */
export default class MachineAuthMiddleware {
  async handle(ctx: HttpContext, next: NextFn, options: { scope: string }) {
    // Rejected requests consume the API-wide limit too (portal-api.md › Limits): an
    // unauthenticated one that of its IP, as on Portal routes.
    const refuseAnonymous = async (error: ApiError): Promise<never> => {
      await enforceLimit('api', `ip:${ctx.request.ip()}`)
      throw error
    }
    const credential = bearerCredential(ctx.request.header('authorization'))
    if (credential.kind === 'absent') return refuseAnonymous(MACHINE_REFUSALS.unauthenticated())
    const invalid = MACHINE_REFUSALS.invalidToken
    if (credential.kind === 'malformed') return refuseAnonymous(invalid())
    let client: Awaited<ReturnType<typeof this.authenticate>>
    try {
      client = await this.authenticate(ctx)
    } catch (error) {
      // Only a failed verification is a bad token; a database outage stays a 503.
      if (error instanceof authErrors.E_UNAUTHORIZED_ACCESS) return refuseAnonymous(invalid())
      throw error
    }
    const token = client.currentAccessToken!
    // A verified client counts every request, those refused below included.
    await enforceLimit('api', `machine:${client.id}`)

    if (!machineApiEnabled()) {
      throw new ApiError(
        'MERCHANT_MACHINE_API_UNAVAILABLE',
        'The merchant machine API is not available.'
      )
    }

    const now = DateTime.now()
    const ownership = await MerchantOauthClient.findBy('oauth_client_id', client.id)
    const merchant = ownership ? await Merchant.find(ownership.merchantId) : null
    if (!ownership || !merchant || !merchant.isActive || !ownership.isUsableAt(client, now)) {
      throw new ApiError(
        'CLIENT_MERCHANT_NOT_AUTHORIZED',
        'The machine client is not authorized for its merchant.'
      )
    }
    if (!token.allows(options.scope)) {
      throw new ApiError('INSUFFICIENT_SCOPE', 'The access token lacks the required scope.')
    }

    await MachineAuthMiddleware.touch(ownership, now)
    ctx.machine = { client, ownership, merchant, token }
    return next()
  }

  /**
   * The request's authenticator is made here, its one user, rather than as `ctx.auth`
   * by a router middleware on every route (a container resolution per request).
   */
  private authenticate(ctx: HttpContext) {
    return auth.createAuthenticator(ctx).use('machine').authenticate()
  }

  private static async touch(ownership: MerchantOauthClient, now: DateTime) {
    const staleBefore = now.minus({ seconds: LAST_USED_RESOLUTION_SECONDS })
    if (ownership.lastUsedAt && ownership.lastUsedAt >= staleBefore) return
    await MerchantOauthClient.query()
      .where('id', ownership.id)
      .where((query) =>
        query.whereNull('last_used_at').orWhere('last_used_at', '<', staleBefore.toJSDate())
      )
      .update({ last_used_at: now.toJSDate() })
  }
}
