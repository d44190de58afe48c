import { DateTime } from 'luxon'
import { PortalTransformer } from '#transformers/portal_transformer'
import type User from '#models/user'
import type Merchant from '#models/merchant'
import { roleName } from '#models/user'
import type { Profile } from '#shapes/profile'
import { utcIsoOrNull } from '#transformers/timestamps'

/**
 * portal-api.md › Profile (`GET /portal/me`, PATCH and OTP verify responses). A
 * pending email change shows only while it can still be verified (unexpired).
 */
export default class ProfileTransformer extends PortalTransformer<{
  user: User
  merchant: Merchant
}> {
  toObject(): Profile {
    const { user, merchant } = this.resource
    const pending =
      user.pendingEmail !== null &&
      user.pendingEmailExpiresAt !== null &&
      user.pendingEmailExpiresAt > DateTime.now()
    return {
      id: user.id,
      reference_id: user.referenceId,
      first_name: user.firstName,
      last_name: user.lastName,
      username: user.username,
      email: user.email,
      pending_email: pending ? user.pendingEmail : null,
      pending_email_expires_at: pending ? utcIsoOrNull(user.pendingEmailExpiresAt) : null,
      email_verified_at: utcIsoOrNull(user.emailVerifiedAt),
      // The PAT stack refuses every other role (portal_auth_middleware.ts).
      role: roleName(user.role)!,
      is_active: user.isActive,
      merchant: { id: merchant.id, reference_id: merchant.referenceId, name: merchant.name },
    }
  }
}
