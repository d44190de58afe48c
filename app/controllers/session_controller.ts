import type PortalClient from '#models/portal_client'
import type { PortalActor } from '#auth/actor'
import type { InputValue } from '#http/endpoint'
import { signIn } from '#services/sessions/sign_in'
import User from '#models/user'
import type { sessionEndpoints as endpoints } from '#controllers/session_endpoints'

/** portal-api.md › Login and session. */
export default class SessionController {
  /** POST /auth/login */
  async login(
    input: InputValue<typeof endpoints.login>,
    application: PortalClient,
    _ctx: unknown,
    _prepared: undefined,
    signal: AbortSignal
  ) {
    return signIn({ ...input, application }, { signal })
  }

  /** POST /auth/logout: revokes only the PAT that made the call. */
  async logout(_input: undefined, actor: PortalActor) {
    await User.accessTokens.revoke(String(actor.session.token.identifier))
  }
}
