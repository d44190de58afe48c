import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import TeamInvitation from '#models/team_invitation'
import { ROLES, type RoleName } from '#models/user'
import type { UserActor } from '#auth/actor'
import { AuditActions } from '#services/audit/actions'
import { audit } from '#services/audit/audit_trail'
import { requirePortalOrigin } from '#support/portal_url'
import {
  INVITATION_VALIDITY_HOURS,
  accountForInvitationEmail,
  ensureNoOtherLivePendingInvitation,
  hashInvitationProof,
  lockTeamOf,
  newInvitationProof,
  sendInvitationMail,
} from '#services/team/invitations/rules'

/** POST /portal/team/invitations */
export async function createInvitation(actor: UserActor, input: { email: string; role: RoleName }) {
  const origin = requirePortalOrigin()
  const proof = newInvitationProof()
  let merchantName = ''
  const invitation = await db.transaction(async (trx) => {
    merchantName = await lockTeamOf(trx, actor)
    await accountForInvitationEmail(input.email, actor.merchantId, trx)
    await ensureNoOtherLivePendingInvitation(trx, actor.merchantId, input.email)
    const now = DateTime.now()
    const created = await TeamInvitation.create(
      {
        id: randomUUID(),
        merchantId: actor.merchantId,
        email: input.email,
        role: ROLES[input.role],
        status: 'pending',
        tokenHash: hashInvitationProof(proof),
        invitedBy: actor.userId,
        failedAttempts: 0,
        expiresAt: now.plus({ hours: INVITATION_VALIDITY_HOURS }),
        createdAt: now,
      },
      { client: trx }
    )
    await audit(trx, actor, {
      action: AuditActions.invitationCreate,
      outcome: 'success',
      metadata: { role: input.role },
      target: { type: 'team_invitation', id: created.id },
    })
    return created
  })
  const sent = await sendInvitationMail(invitation, proof, origin, merchantName)
  return { invitation, sent }
}
