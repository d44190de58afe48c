import type { HttpContext } from '@adonisjs/core/http'
import { noContent, pageMeta, respond } from '#http/responses'
import { NO_BODY } from '#validators/rules/input'
import { validateBody, validateQuery } from '#http/request_input'
import { pageOf } from '#validators/rules/pagination'
import {
  acceptAsExistingAccountInput,
  acceptAsNewAccountInput,
  acceptanceProofInput,
  createInvitationInput,
  listInvitationsInput,
} from '#validators/team'
import { applicationActor } from '#auth/actor'
import { listInvitations } from '#services/team/invitations/list'
import { createInvitation } from '#services/team/invitations/create'
import { resendInvitation } from '#services/team/invitations/resend'
import { revokeInvitation } from '#services/team/invitations/revoke'
import {
  acceptAsExistingAccount,
  acceptAsNewAccount,
  resolveInvitation,
} from '#services/team/invitations/accept'
import InvitationTransformer, {
  InvitationWithDeliveryTransformer,
} from '#transformers/invitation_transformer'
import TeamMemberTransformer from '#transformers/team_member_transformer'

const SENT = 'Invitation sent.'
const NOT_SENT =
  'The invitation was saved, but its email could not be sent. Resend the invitation to try again.'

/** portal-api.md › Team (invitations and their acceptance). */
export default class TeamInvitationsController {
  /** GET /portal/team/invitations */
  async index(ctx: HttpContext) {
    const input = await validateQuery(ctx, listInvitationsInput)
    const { page, perPage } = pageOf(input)
    const { items, total } = await listInvitations(ctx.actor!, {
      status: input.status,
      page,
      perPage,
    })
    return respond(ctx, 'Success', InvitationTransformer.transform(items), {
      meta: { ...pageMeta(page, perPage, total) },
    })
  }

  /** POST /portal/team/invitations */
  async store(ctx: HttpContext) {
    const input = await validateBody(ctx, createInvitationInput)
    const result = await createInvitation(ctx.actor!, input)
    return respond(
      ctx,
      result.sent ? SENT : NOT_SENT,
      InvitationWithDeliveryTransformer.transform(result),
      { status: 201 }
    )
  }

  /** POST /portal/team/invitations/{invitation}/resend */
  async resend(ctx: HttpContext) {
    await validateBody(ctx, NO_BODY)
    const result = await resendInvitation(ctx.actor!, ctx.params.invitation)
    return respond(
      ctx,
      result.sent ? SENT : NOT_SENT,
      InvitationWithDeliveryTransformer.transform(result)
    )
  }

  /** DELETE /portal/team/invitations/{invitation} */
  async destroy(ctx: HttpContext) {
    await validateBody(ctx, NO_BODY)
    await revokeInvitation(ctx.actor!, ctx.params.invitation)
    return noContent(ctx)
  }

  /**
   * POST /portal/team/invitations/accept (Portal application credentials, no PAT).
   * The proof is resolved first (404/410/409 before 422): which body is valid
   * depends on whether an account exists for the invitation email.
   */
  async accept(ctx: HttpContext) {
    const { token } = await validateBody(ctx, acceptanceProofInput)
    const { invitation, account } = await resolveInvitation(token)
    const requester = applicationActor(ctx, ctx.portalClient!.id)
    const member =
      account === null
        ? await acceptAsNewAccount(
            requester,
            invitation,
            await validateBody(ctx, acceptAsNewAccountInput)
          )
        : await acceptAsExistingAccount(
            requester,
            invitation,
            account,
            await validateBody(ctx, acceptAsExistingAccountInput)
          )
    return respond(
      ctx,
      'Invitation accepted. Log in to continue.',
      TeamMemberTransformer.transform(member)
    )
  }
}
