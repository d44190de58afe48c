import db from '@adonisjs/lucid/services/db'
import type { UserActor } from '#auth/actor'
import { audit } from '#services/audit/audit_trail'
import { ensureActorStillAdministrator, lockMerchantTeam } from '#services/team/team_locks'
import { ensureAnotherActiveAdministrator, lockMember } from '#services/team/member_rules'
import { revokeAllTokensOf } from '#services/sessions/token_revocation'

/**
 * DELETE /portal/team/members/{member}: detaches the user from the merchant,
 * deactivates it, clears its remember token and revokes its tokens. The user,
 * its password, transactions and audit records stay.
 */
export async function removeMember(actor: UserActor, memberId: string) {
  await db.transaction(async (trx) => {
    await lockMerchantTeam(trx, actor.merchantId)
    const target = await lockMember(trx, actor.merchantId, memberId)
    await ensureAnotherActiveAdministrator(trx, actor.merchantId, target)
    await ensureActorStillAdministrator(trx, actor)

    target.useTransaction(trx)
    target.merge({ merchantId: null, isActive: false, rememberMeToken: null })
    await target.save()
    await revokeAllTokensOf(target, trx)
    await audit(trx, actor, {
      action: 'team.member.remove',
      outcome: 'success',
      target: { type: 'user', id: target.id },
    })
  })
}
