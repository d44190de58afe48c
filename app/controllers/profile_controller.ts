import type { PortalActor, UserActor } from '#auth/actor'
import type { InputValue } from '#http/endpoint'
import { changePassword } from '#services/profile/passwords'
import {
  resendEmailVerification,
  updateProfile,
  verifyEmailOtp,
} from '#services/profile/email_change'
import type { profileEndpoints as endpoints } from '#controllers/profile_endpoints'

/** portal-api.md › Profile. */
export default class ProfileController {
  /** GET /portal/me: the signed-in session's user and merchant. */
  show(_input: undefined, actor: PortalActor) {
    return actor.session
  }

  /** PATCH /portal/me (strict) */
  async update(input: InputValue<typeof endpoints.update>, actor: PortalActor) {
    const { user, emailChangeStarted } = await updateProfile(actor, input)
    return { user, merchant: actor.session.merchant, emailChangeStarted }
  }

  /** POST /portal/me/email/verify (strict) */
  async verifyEmail(input: InputValue<typeof endpoints.verifyEmail>, actor: PortalActor) {
    return { user: await verifyEmailOtp(actor, input), merchant: actor.session.merchant }
  }

  /** POST /portal/me/email/resend (no body) */
  async resendEmail(_input: object, actor: UserActor) {
    await resendEmailVerification(actor)
  }

  /** PUT /portal/me/password (unlisted fields ignored) */
  async changePassword(
    input: InputValue<typeof endpoints.changePassword>,
    actor: UserActor,
    _ctx: unknown,
    _prepared: undefined,
    signal: AbortSignal
  ) {
    await changePassword(actor, input, { signal })
    return { reauthentication_required: true } as const
  }
}
