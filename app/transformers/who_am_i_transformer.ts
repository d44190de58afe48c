import { PortalTransformer } from '#transformers/portal_transformer'
import type { MachineSession } from '#middleware/machine_auth_middleware'
import type { WhoAmI } from '#shapes/machine_access'

/** Whom a machine token acts for: its merchant, client, scopes and expiry. */
export default class WhoAmITransformer extends PortalTransformer<MachineSession> {
  toObject(): WhoAmI {
    const { client, merchant, token } = this.resource
    return {
      merchant_reference_id: merchant.referenceId,
      oauth_client_id: client.id,
      scopes: [...token.abilities],
      expires_at: token.expiresAt ? token.expiresAt.toISOString() : null,
    }
  }
}
