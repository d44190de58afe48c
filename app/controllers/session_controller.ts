import type { HttpContext } from '@adonisjs/core/http'
import { respond } from '#http/responses'
import { clientGoneSignal } from '#http/client_gone'
import { validateBody } from '#http/request_input'
import { loginInput } from '#validators/session'
import { signIn } from '#services/sessions/sign_in'
import User from '#models/user'
import LoginUserTransformer from '#transformers/login_user_transformer'
import { utcIso } from '#transformers/timestamps'
import type { LoginResult } from '#shapes/profile'

/** portal-api.md › Login and session. */
export default class SessionController {
  /** POST /auth/login */
  async login(ctx: HttpContext) {
    const application = ctx.portalClient!
    const input = await validateBody(ctx, loginInput)
    const session = await signIn({ ...input, application }, { signal: clientGoneSignal(ctx) })
    return respond(ctx, 'Login successful.', {
      access_token: session.accessToken,
      token_type: 'Bearer',
      expires_at: utcIso(session.expiresAt),
      user: LoginUserTransformer.transform({ user: session.user, merchant: session.merchant }),
    } satisfies LoginResult)
  }

  /** POST /auth/logout: revokes only the PAT that made the call. */
  async logout(ctx: HttpContext) {
    await User.accessTokens.revoke(String(ctx.portal!.token.identifier))
    return respond(ctx, 'Logged out.')
  }
}
