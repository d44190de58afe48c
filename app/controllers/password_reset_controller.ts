import type { HttpContext } from '@adonisjs/core/http'
import ApiError from '#exceptions/api_error'
import { actorOf } from '#auth/actor'
import type { InputValue } from '#http/endpoint'
import { isPortalPageUrl, requirePortalOrigin } from '#support/portal_url'
import { resetPassword } from '#services/profile/passwords'
import { requestPasswordResetInBackground } from '#services/profile/password_reset_link'
import type { passwordResetEndpoints as endpoints } from '#controllers/password_reset_endpoints'

/** portal-api.md › POST /auth/reset-password/reset-link and /new-password (public). */
export default class PasswordResetController {
  /** POST /auth/reset-password/reset-link: the same answer whether or not the account exists. */
  async sendLink(
    input: InputValue<typeof endpoints.sendLink>,
    _actor: undefined,
    ctx: HttpContext
  ) {
    const origin = requirePortalOrigin()
    if (!isPortalPageUrl(input.reset_url, origin)) {
      throw ApiError.field(
        'reset_url',
        'The reset_url must be a page of the Portal, without credentials, query or fragment.'
      )
    }
    await requestPasswordResetInBackground(
      { email: input.email, resetUrl: input.reset_url },
      actorOf(ctx)
    )
  }

  /** POST /auth/reset-password/new-password */
  async reset(
    input: InputValue<typeof endpoints.reset>,
    _actor: undefined,
    ctx: HttpContext,
    _prepared: undefined,
    signal: AbortSignal
  ) {
    await resetPassword(actorOf(ctx), input, { signal })
  }
}
