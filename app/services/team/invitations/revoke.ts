import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import type { UserActor } from '#auth/actor'
import { AuditActions } from '#services/audit/actions'
import { audit } from '#services/audit/audit_trail'
import {
  invitationUnavailable,
  lockInvitationOf,
  lockTeamOf,
} from '#services/team/invitations/rules'

/** DELETE /portal/team/invitations/{invitation}: repeat-safe; accepted → 410. */
export async function revokeInvitation(actor: UserActor, invitationId: string) {
  await db.transaction(async (trx) => {
    await lockTeamOf(trx, actor)
    const found = await lockInvitationOf(trx, actor.merchantId, invitationId)
    if (found.status === 'accepted') throw invitationUnavailable()
    if (found.status === 'revoked') return
    const now = DateTime.now()
    found.useTransaction(trx)
    found.merge({ status: 'revoked', revokedAt: now })
    await found.save()
    await audit(trx, actor, {
      action: AuditActions.invitationRevoke,
      outcome: 'success',
      target: { type: 'team_invitation', id: found.id },
    })
  })
}
