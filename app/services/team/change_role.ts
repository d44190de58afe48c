import db from '@adonisjs/lucid/services/db'
import { ROLES, type RoleName } from '#models/user'
import type { UserActor } from '#auth/actor'
import { AuditActions } from '#services/audit/actions'
import { audit } from '#services/audit/audit_trail'
import { ensureActorStillAdministrator, lockMerchantTeam } from '#services/team/team_locks'
import { ensureAnotherActiveAdministrator, lockMember } from '#services/team/member_rules'
import { revokeAllTokensOf } from '#services/sessions/token_revocation'

/**
 * PATCH /portal/team/members/{member}/role. The same role again changes nothing
 * (no revocation, no audit). A real change revokes all the target's tokens.
 */
export async function changeMemberRole(
  actor: UserActor,
  memberId: string,
  input: { role: RoleName }
) {
  const { role } = input
  return db.transaction(async (trx) => {
    await lockMerchantTeam(trx, actor.merchantId)
    // A caller demoted or removed while it waited for the lock is no administrator any
    // more: 403 FORBIDDEN before anything about the target (even LAST_ADMINISTRATOR).
    await ensureActorStillAdministrator(trx, actor)
    const target = await lockMember(trx, actor.merchantId, memberId)
    const newRole = ROLES[role]
    if (target.role === newRole) return target
    await ensureAnotherActiveAdministrator(trx, actor.merchantId, target)

    const previous = target.role
    target.useTransaction(trx)
    target.role = newRole
    await target.save()
    await revokeAllTokensOf(target, trx)
    await audit(trx, actor, {
      action: AuditActions.teamMemberRoleChange,
      outcome: 'success',
      metadata: {
        from: previous === ROLES.administrator ? 'administrator' : 'developer',
        to: role,
      },
      target: { type: 'user', id: target.id },
    })
    return target
  })
}
