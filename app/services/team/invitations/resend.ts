import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import type { UserActor } from '#auth/actor'
import { AuditActions } from '#services/audit/actions'
import { audit } from '#services/audit/audit_trail'
import { requirePortalOrigin, type PortalOrigin } from '#support/portal_url'
import {
  INVITATION_VALIDITY_HOURS,
  accountForInvitationEmail,
  ensureNoOtherLivePendingInvitation,
  hashInvitationProof,
  invitationUnavailable,
  lockInvitationOf,
  lockTeamOf,
  newInvitationProof,
  sendInvitationMail,
} from '#services/team/invitations/rules'

/** POST /portal/team/invitations/{invitation}/resend */
export async function resendInvitation(actor: UserActor, invitationId: string) {
  const proof = newInvitationProof()
  let origin: PortalOrigin | undefined
  let merchantName = ''
  const invitation = await db.transaction(async (trx) => {
    merchantName = await lockTeamOf(trx, actor)
    const found = await lockInvitationOf(trx, actor.merchantId, invitationId)
    if (found.status !== 'pending') throw invitationUnavailable()
    origin = requirePortalOrigin()
    await accountForInvitationEmail(found.email, actor.merchantId, trx)
    await ensureNoOtherLivePendingInvitation(trx, actor.merchantId, found.email, found.id)
    found.useTransaction(trx)
    found.merge({
      tokenHash: hashInvitationProof(proof),
      failedAttempts: 0,
      expiresAt: DateTime.now().plus({ hours: INVITATION_VALIDITY_HOURS }),
      // The administrator who resends vouches for the new proof.
      invitedBy: actor.userId,
    })
    await found.save()
    await audit(trx, actor, {
      action: AuditActions.invitationResend,
      outcome: 'success',
      target: { type: 'team_invitation', id: found.id },
    })
    return found
  })
  const sent = await sendInvitationMail(invitation, proof, origin!, merchantName)
  return { invitation, sent }
}
