import type { HttpContext } from '@adonisjs/core/http'
import type PortalClient from '#models/portal_client'
import { applicationActor, type UserActor } from '#auth/actor'
import type { InputValue, PageRequest, PreparedOf } from '#http/endpoint'
import { listInvitations } from '#services/team/invitations/list'
import { createInvitation } from '#services/team/invitations/create'
import { resendInvitation } from '#services/team/invitations/resend'
import { revokeInvitation } from '#services/team/invitations/revoke'
import { acceptAsExistingAccount, acceptAsNewAccount } from '#services/team/invitations/accept'
import type { teamInvitationsEndpoints as endpoints } from '#controllers/team_invitations_endpoints'

/** portal-api.md › Team (invitations and their acceptance). */
export default class TeamInvitationsController {
  /** GET /portal/team/invitations */
  async index(
    input: InputValue<typeof endpoints.index>,
    actor: UserActor,
    _ctx: HttpContext,
    { page, perPage }: PageRequest
  ) {
    return listInvitations(actor, { status: input.status, page, perPage })
  }

  /** POST /portal/team/invitations */
  async store(input: InputValue<typeof endpoints.store>, actor: UserActor) {
    return createInvitation(actor, input)
  }

  /** POST /portal/team/invitations/{invitation}/resend */
  async resend(_input: object, actor: UserActor, ctx: HttpContext) {
    return resendInvitation(actor, ctx.params.invitation)
  }

  /** DELETE /portal/team/invitations/{invitation} */
  async destroy(_input: object, actor: UserActor, ctx: HttpContext) {
    await revokeInvitation(actor, ctx.params.invitation)
  }

  /**
   * POST /portal/team/invitations/accept (Portal application credentials, no PAT).
   * The proof's invitation was resolved first, and the body validated in the form
   * its account calls for (a new account, or the existing detached one).
   */
  async accept(
    input: InputValue<typeof endpoints.accept>,
    application: PortalClient,
    ctx: HttpContext,
    { invitation, account }: PreparedOf<typeof endpoints.accept>,
    signal: AbortSignal
  ) {
    const requester = applicationActor(ctx, application.id)
    const options = { signal }
    // The existing account's form is the one with `current_password` (formOf).
    return 'current_password' in input
      ? acceptAsExistingAccount(requester, invitation, account!, input, options)
      : acceptAsNewAccount(requester, invitation, input, options)
  }
}
