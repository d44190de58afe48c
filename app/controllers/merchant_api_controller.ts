import type { HttpContext } from '@adonisjs/core/http'
import { respond } from '#http/responses'
import type { WhoAmI } from '#controllers/merchant_api_endpoints'

/**
 * The merchant integration API itself is outside the Portal contract; this one
 * read-only endpoint lets integrators verify machine credentials end to end.
 */
export default class MerchantApiController {
  /** GET /api/v1/merchant-api/whoami (machine token) */
  async whoami(ctx: HttpContext) {
    const { client, merchant, token } = ctx.machine!
    return respond(ctx, 'Success', {
      merchant_reference_id: merchant.referenceId,
      oauth_client_id: client.id,
      scopes: [...token.abilities],
      expires_at: token.expiresAt ? token.expiresAt.toISOString() : null,
    } satisfies WhoAmI)
  }
}
