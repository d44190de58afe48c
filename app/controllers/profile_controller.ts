import type { HttpContext } from '@adonisjs/core/http'
import { respond } from '#http/responses'
import ProfileTransformer from '#transformers/profile_transformer'

/** portal-api.md › Profile. */
export default class ProfileController {
  /** GET /portal/me */
  async show(ctx: HttpContext) {
    const { user, merchant } = ctx.portal!
    return respond(ctx, 'Success', ProfileTransformer.transform({ user, merchant }))
  }
}
