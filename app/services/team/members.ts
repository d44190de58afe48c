/*
| Team members (portal-api.md › Team, Team member state, Authentication rule 5):
| list, role change, removal. Mutations lock the merchant's team first
| (team_locks.ts) so that two administrators demoting or removing each other at
| once always leave one active administrator.
*/
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import type { PortalSession } from '#http/context'
import User, { ROLES, type RoleName } from '#models/user'
import { actorFor, audit } from '#services/audit/audit_trail'
import type { Actor } from '#auth/actor'
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

export default class TeamMemberService {
  /** GET /portal/team/members: the merchant's Portal accounts, inactive included, by id. */
  static async list(merchantId: number, page: number, perPage: number) {
    const result = await User.query()
      .where('merchant_id', merchantId)
      .whereIn('role', PORTAL_ROLES)
      .orderBy('id', 'asc')
      .paginate(page, perPage)
    return { items: result.all(), total: result.total }
  }

  /**
   * PATCH /portal/team/members/{member}/role. The same role again changes nothing
   * (no revocation, no audit). A real change revokes all the target's tokens.
   */
  static async changeRole(
    session: PortalSession,
    memberId: string,
    role: RoleName,
    requester: Actor
  ) {
    const { user: actor, merchant } = session
    return db.transaction(async (trx) => {
      await lockMerchantTeam(trx, merchant.id)
      const target = await lockMember(trx, merchant.id, memberId)
      const newRole = ROLES[role]
      if (target.role === newRole) return target
      await ensureAnotherActiveAdministrator(trx, merchant.id, target)
      await ensureActorStillAdministrator(trx, merchant.id, actor)

      const previous = target.role
      target.useTransaction(trx)
      target.role = newRole
      await target.save()
      await revokeAllTokensOf(target, trx)
      await audit(trx, actorFor(requester, { userId: actor.id, merchantId: merchant.id }), {
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
  static async remove(session: PortalSession, memberId: string, requester: Actor) {
    const { user: actor, merchant } = session
    await db.transaction(async (trx) => {
      await lockMerchantTeam(trx, merchant.id)
      const target = await lockMember(trx, merchant.id, memberId)
      await ensureAnotherActiveAdministrator(trx, merchant.id, target)
      await ensureActorStillAdministrator(trx, merchant.id, actor)

      target.useTransaction(trx)
      target.merge({ merchantId: null, isActive: false, rememberMeToken: null })
      await target.save()
      await revokeAllTokensOf(target, trx)
      await audit(trx, actorFor(requester, { userId: actor.id, merchantId: merchant.id }), {
        action: 'team.member.remove',
        outcome: 'success',
        target: { type: 'user', id: target.id },
      })
    })
  }
}
