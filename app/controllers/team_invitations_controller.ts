import type { HttpContext } from '@adonisjs/core/http'
import { noContent, pageMeta, respond } from '#http/responses'
import { enforceLimit } from '#limits/limits'
import { NO_BODY, isPlainObject, validateBody, validateQuery } from '#validators/rules/input'
import { pageOf } from '#validators/rules/pagination'
import { createInvitationInput, listInvitationsInput } from '#validators/team'
import AuditLogService from '#services/audit_log_service'
import InvitationService, { hashInvitationProof } from '#services/invitation_service'
import InvitationAcceptanceService from '#services/invitation_acceptance_service'
import InvitationTransformer, {
  InvitationWithDeliveryTransformer,
} from '#transformers/invitation_transformer'
import TeamMemberTransformer from '#transformers/team_member_transformer'

const SENT = 'Invitation sent.'
const NOT_SENT =
  'The invitation was saved, but its email could not be sent. Resend the invitation to try again.'

type InvitationOperation = 'create' | 'resend' | 'revoke'

/**
 * Invitation create, resend and revoke share one bucket: 5 per minute per
 * administrator and merchant (Limits). Consumed before validation; refusals audited.
 */
async function enforceInvitationLimit(ctx: HttpContext, operation: InvitationOperation) {
  const { user, merchant } = ctx.portal!
  await enforceLimit(
    'invitationMutation',
    `${user.id}:${merchant.id}`,
    AuditLogService.throttled(ctx, `team.invitation.${operation}`, {
      type: 'team_invitation',
      id: (ctx.params.invitation as string | undefined) ?? null,
    })
  )
}

/** portal-api.md › Team (invitations and their acceptance). */
export default class TeamInvitationsController {
  /** GET /portal/team/invitations */
  async index(ctx: HttpContext) {
    const input = await validateQuery(ctx, listInvitationsInput)
    const { page, perPage } = pageOf(input)
    const { items, total } = await InvitationService.list(ctx.portal!.merchant.id, {
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
    await enforceInvitationLimit(ctx, 'create')
    const input = await validateBody(ctx, createInvitationInput)
    const result = await InvitationService.create(ctx.portal!, input, ctx)
    return respond(
      ctx,
      result.sent ? SENT : NOT_SENT,
      InvitationWithDeliveryTransformer.transform(result),
      { status: 201 }
    )
  }

  /** POST /portal/team/invitations/{invitation}/resend */
  async resend(ctx: HttpContext) {
    await enforceInvitationLimit(ctx, 'resend')
    await validateBody(ctx, NO_BODY)
    const result = await InvitationService.resend(ctx.portal!, ctx.params.invitation, ctx)
    return respond(
      ctx,
      result.sent ? SENT : NOT_SENT,
      InvitationWithDeliveryTransformer.transform(result)
    )
  }

  /** DELETE /portal/team/invitations/{invitation} */
  async destroy(ctx: HttpContext) {
    await enforceInvitationLimit(ctx, 'revoke')
    await validateBody(ctx, NO_BODY)
    await InvitationService.revoke(ctx.portal!, ctx.params.invitation, ctx)
    return noContent(ctx)
  }

  /**
   * POST /portal/team/invitations/accept (Portal application credentials, no PAT).
   * Limits: 5 per minute per IP, and 5 per minute per proof hash and IP; both are
   * consumed before the body is validated.
   */
  async accept(ctx: HttpContext) {
    const ip = ctx.request.ip()
    const body = ctx.request.body()
    const proof = isPlainObject(body) && typeof body.token === 'string' ? body.token.trim() : ''
    const proofHash = hashInvitationProof(proof)
    const onThrottled = AuditLogService.throttled(ctx, 'team.invitation.accept', null, {
      actorType: 'portal_application',
      metadata: { portal_client_id: ctx.portalClient?.id ?? null },
    })
    await enforceLimit('invitationAcceptanceIp', ip, onThrottled)
    await enforceLimit('invitationAcceptance', `${proofHash}:${ip}`, onThrottled)

    const member = await InvitationAcceptanceService.accept(ctx)
    return respond(
      ctx,
      'Invitation accepted. Log in to continue.',
      TeamMemberTransformer.transform(member)
    )
  }
}
