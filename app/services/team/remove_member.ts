import db from '@adonisjs/lucid/services/db'
import type { UserActor } from '#auth/actor'
import { AuditActions } from '#services/audit/actions'
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
    // As in changeMemberRole: a caller no longer administrator is 403 first.
    await ensureActorStillAdministrator(trx, actor)
    const target = await lockMember(trx, actor.merchantId, memberId)
    await ensureAnotherActiveAdministrator(trx, actor.merchantId, target)

    target.useTransaction(trx)
    // Outstanding proofs go with the membership: a password-reset
    // proof or a pending email change requested before removal is no longer usable.
    target.merge({
      merchantId: null,
      isActive: false,
      rememberMeToken: null,
      pendingEmail: null,
      pendingEmailExpiresAt: null,
      pendingEmailVerificationId: null,
      pendingEmailOtpHash: null,
      pendingEmailProofHash: null,
      pendingEmailFailedAttempts: 0,
    })
    await target.save()
    await trx.from('password_reset_tokens').where('user_id', target.id).delete()
    await revokeAllTokensOf(target, trx)
    await audit(trx, actor, {
      action: AuditActions.teamMemberRemove,
      outcome: 'success',
      target: { type: 'user', id: target.id },
    })
  })
}
