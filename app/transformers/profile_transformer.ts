import { Settings, type DateTime } from 'luxon'
import { PortalTransformer } from '#transformers/portal_transformer'
import type { SessionMerchant, SessionUser } from '#auth/session_columns'
import { roleName } from '#models/user'
import type { Profile } from '#shapes/profile'
import { utcIsoOrNull } from '#transformers/timestamps'

/** The user's columns a Profile shows: the signed-in session's, or a model's after a change. */
type ProfileUser = Omit<SessionUser, 'pendingEmailExpiresAt' | 'emailVerifiedAt'> & {
  pendingEmailExpiresAt: Date | DateTime | null
  emailVerifiedAt: Date | DateTime | null
}

/**
 * portal-api.md › Profile (`GET /portal/me`, PATCH and OTP verify responses). A
 * pending email change shows only while it can still be verified (unexpired).
 */
export default class ProfileTransformer extends PortalTransformer<{
  user: ProfileUser
  merchant: Pick<SessionMerchant, 'id' | 'referenceId' | 'name'>
}> {
  toObject(): Profile {
    const { user, merchant } = this.resource
    const pending =
      user.pendingEmail !== null &&
      user.pendingEmailExpiresAt !== null &&
      user.pendingEmailExpiresAt.valueOf() > Settings.now()
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
