import type { HttpContext } from '@adonisjs/core/http'
import ApiError from '#exceptions/api_error'
import { actorOf } from '#auth/actor'
import { respond } from '#http/responses'
import { validateBody } from '#http/request_input'
import { newPasswordInput, resetLinkInput } from '#validators/password'
import { isPortalPageUrl, requirePortalOrigin } from '#support/portal_url'
import { requestPasswordResetInBackground, resetPassword } from '#services/profile/passwords'

/** portal-api.md › POST /auth/reset-password/reset-link and /new-password (public). */
export default class PasswordResetController {
  /** POST /auth/reset-password/reset-link: the same answer whether or not the account exists. */
  async sendLink(ctx: HttpContext) {
    const input = await validateBody(ctx, resetLinkInput)
    const origin = requirePortalOrigin()
    if (!isPortalPageUrl(input.reset_url, origin)) {
      throw ApiError.field(
        'reset_url',
        'The reset_url must be a page of the Portal, without credentials, query or fragment.'
      )
    }
    await requestPasswordResetInBackground({ email: input.email, resetUrl: input.reset_url })
    return respond(
      ctx,
      'If an account exists for this email address, a password reset link has been sent to it.'
    )
  }

  /** POST /auth/reset-password/new-password */
  async reset(ctx: HttpContext) {
    const input = await validateBody(ctx, newPasswordInput)
    await resetPassword(actorOf(ctx), input)
    return respond(ctx, 'Your password has been reset. Log in with your new password.')
  }
}
