import type { HttpContext } from '@adonisjs/core/http'
import { DateTime } from 'luxon'
import ApiError from '#exceptions/api_error'
import { actorOf } from '#auth/actor'
import { requirePortalOrigin, portalLink } from '#support/portal_url'
import { EMAIL_VERIFICATION_PURPOSE, verifyEmailLink } from '#services/profile/email_change'

/**
 * portal-api.md › GET {web_url}/portal/profile/email/verify/{verification}: the
 * signed link mailed for an email change. No PAT. Answers with a redirect to the
 * Portal that carries only `email_verification=verified|invalid`.
 */
export default class EmailVerificationLinkController {
  async verify(_input: undefined, _actor: undefined, ctx: HttpContext) {
    const { request, response } = ctx
    const { proof, expires } = request.qs()
    // The framework's signed URL (APP_KEY): path, proof and expires as issued.
    const signed =
      request.hasValidSignature(EMAIL_VERIFICATION_PURPOSE) &&
      typeof proof === 'string' &&
      typeof expires === 'string' &&
      /^[0-9]{1,12}$/.test(expires)
    if (!signed || Number(expires) <= DateTime.now().toSeconds()) {
      throw new ApiError('INVALID_SIGNATURE', 'The verification link is invalid or has expired.')
    }
    const origin = requirePortalOrigin()
    const outcome = await verifyEmailLink(actorOf(ctx), {
      verification: ctx.params.verification,
      proof,
    })
    response.redirect(portalLink(origin, '/', { query: { email_verification: outcome } }))
  }
}
