import { PortalTransformer } from '#transformers/portal_transformer'
import type User from '#models/user'
import type { ROLES, RoleName } from '#models/user'
import type Merchant from '#models/merchant'
import type { DateTime } from 'luxon'
import type { LoginResult, LoginUser } from '#shapes/profile'
import { utcIso, utcIsoOrNull } from '#transformers/timestamps'

/** portal-api.md › Login user (`data.user` of the login response). */
export default class LoginUserTransformer extends PortalTransformer<{
  user: User
  merchant: Merchant
}> {
  toObject(): LoginUser {
    const { user, merchant } = this.resource
    return {
      id: user.id,
      reference_id: user.referenceId,
      merchant_reference_id: merchant.referenceId,
      merchant_id: merchant.id,
      first_name: user.firstName,
      last_name: user.lastName,
      // Sign-in refuses every other role (app/services/sessions/sign_in.ts).
      role: user.role as (typeof ROLES)[RoleName],
      email: user.email,
      email_verified_at: utcIsoOrNull(user.emailVerifiedAt),
      created_at: utcIso(user.createdAt),
    }
  }
}

/** portal-api.md › POST /auth/login: the issued PAT and its user. */
export class LoginResultTransformer extends PortalTransformer<{
  accessToken: string
  expiresAt: DateTime
  user: User
  merchant: Merchant
}> {
  toObject(): LoginResult {
    const session = this.resource
    return {
      access_token: session.accessToken,
      token_type: 'Bearer',
      expires_at: utcIso(session.expiresAt),
      user: new LoginUserTransformer(session).toObject(),
    }
  }
}
