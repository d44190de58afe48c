/*
| Team members (portal-api.md › Team, Team member state, Authentication rule 5):
| list, role change, removal. Mutations lock the merchant's team first
| (team_locks.ts) so that two administrators demoting or removing each other at
| once always leave one active administrator.
*/
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import User, { ROLES, type RoleName } from '#models/user'
import { audit } from '#services/audit/audit_trail'
import type { UserActor } from '#auth/actor'
import { ensureActorStillAdministrator, lockMerchantTeam } from '#services/team/team_locks'
import { revokeAllTokensOf } from '#services/sessions/token_revocation'

const PORTAL_ROLES = [ROLES.administrator, ROLES.developer]

/** A member of the merchant with a Portal role (inactive included), locked for the transaction. */
async function lockMember(trx: TransactionClientContract, merchantId: number, memberId: string) {
  const member = await User.query({ client: trx })
    .where('id', memberId)
    .where('merchant_id', merchantId)
    .whereIn('role', PORTAL_ROLES)
    .forUpdate()
    .first()
  if (!member) throw ApiError.notFound()
  return member
}

/** The sole ACTIVE administrator can be neither demoted nor removed (inactive ones do not count). */
async function ensureAnotherActiveAdministrator(
  trx: TransactionClientContract,
  merchantId: number,
  target: User
) {
  if (target.role !== ROLES.administrator || !target.isActive) return
  const row = await trx
    .from('users')
    .where('merchant_id', merchantId)
    .where('role', ROLES.administrator)
    .where('is_active', true)
    .whereNot('id', target.id)
    .count('* as total')
    .first()
  if (Number(row?.total ?? 0) === 0) {
    throw ApiError.conflict(
      'LAST_ADMINISTRATOR',
      'The only active administrator cannot be demoted or removed.'
    )
  }
}

/** GET /portal/team/members: the merchant's Portal accounts, inactive included, by id. */
export async function listMembers(actor: UserActor, input: { page: number; perPage: number }) {
  const { page, perPage } = input
  const result = await User.query()
    .where('merchant_id', actor.merchantId)
    .whereIn('role', PORTAL_ROLES)
    .orderBy('id', 'asc')
    .paginate(page, perPage)
  return { items: result.all(), total: result.total }
}

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
    const target = await lockMember(trx, actor.merchantId, memberId)
    const newRole = ROLES[role]
    if (target.role === newRole) return target
    await ensureAnotherActiveAdministrator(trx, actor.merchantId, target)
    await ensureActorStillAdministrator(trx, actor)

    const previous = target.role
    target.useTransaction(trx)
    target.role = newRole
    await target.save()
    await revokeAllTokensOf(target, trx)
    await audit(trx, actor, {
      action: 'team.member.role_change',
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
