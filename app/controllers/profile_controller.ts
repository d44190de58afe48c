import type { HttpContext } from '@adonisjs/core/http'
import { respond } from '#http/responses'
import { NO_BODY } from '#validators/rules/input'
import { validateBody, validateBodyWithPrechecks } from '#http/request_input'
import { emailOtpInput, profileUpdateInput, profileUpdatePrechecks } from '#validators/profile'
import { changePasswordInput } from '#validators/password'
import ProfileTransformer from '#transformers/profile_transformer'
import type { PasswordChanged } from '#shapes/profile'
import { changePassword } from '#services/profile/passwords'
import {
  resendEmailVerification,
  updateProfile,
  verifyEmailOtp,
} from '#services/profile/email_change'

/** portal-api.md › Profile. */
export default class ProfileController {
  /** GET /portal/me */
  async show(ctx: HttpContext) {
    const { user, merchant } = ctx.portal!
    return respond(ctx, 'Success', ProfileTransformer.transform({ user, merchant }))
  }

  /** PATCH /portal/me (strict) */
  async update(ctx: HttpContext) {
    const input = await validateBodyWithPrechecks(ctx, profileUpdateInput, profileUpdatePrechecks)
    const { user, emailChangeStarted } = await updateProfile(ctx.actor!, input)
    const message = emailChangeStarted
      ? 'Profile updated. Enter the code sent to the new email address to confirm it.'
      : 'Profile updated.'
    return respond(
      ctx,
      message,
      ProfileTransformer.transform({ user, merchant: ctx.portal!.merchant })
    )
  }

  /** POST /portal/me/email/verify (strict) */
  async verifyEmail(ctx: HttpContext) {
    const input = await validateBody(ctx, emailOtpInput)
    const user = await verifyEmailOtp(ctx.actor!, input)
    return respond(
      ctx,
      'Email verified.',
      ProfileTransformer.transform({ user, merchant: ctx.portal!.merchant })
    )
  }

  /** POST /portal/me/email/resend (no body) */
  async resendEmail(ctx: HttpContext) {
    await validateBody(ctx, NO_BODY)
    await resendEmailVerification(ctx.actor!)
    return respond(ctx, 'A new verification code has been sent to the new email address.')
  }

  /** PUT /portal/me/password (unlisted fields ignored) */
  async changePassword(ctx: HttpContext) {
    const input = await validateBody(ctx, changePasswordInput)
    await changePassword(ctx.actor!, input)
    return respond(ctx, 'Password changed. Log in again with the new password.', {
      reauthentication_required: true,
    } satisfies PasswordChanged)
  }
}
