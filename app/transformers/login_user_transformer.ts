import { PortalTransformer } from '#transformers/portal_transformer'
import type User from '#models/user'
import type Merchant from '#models/merchant'

/** portal-api.md › Login user (`data.user` of the login response). */
export default class LoginUserTransformer extends PortalTransformer<{
  user: User
  merchant: Merchant
}> {
  toObject() {
    const { user, merchant } = this.resource
    return {
      id: user.id,
      reference_id: user.referenceId,
      merchant_reference_id: merchant.referenceId,
      merchant_id: merchant.id,
      first_name: user.firstName,
      last_name: user.lastName,
      role: user.role,
      email: user.email,
      email_verified_at: user.emailVerifiedAt?.toUTC().toISO() ?? null,
      created_at: user.createdAt.toUTC().toISO(),
    }
  }
}
