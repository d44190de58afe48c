/*
| Team members (portal-api.md › Team, Team member state, Authentication rule 5): the
| rules the list, role change (change_role.ts) and removal (remove_member.ts) share.
| Mutations lock the merchant's team first (team_locks.ts) so that two
| administrators demoting or removing each other at once always leave one active
| administrator.
*/
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import ApiError from '#exceptions/api_error'
import User, { ROLES } from '#models/user'
import { lockTeamRow } from '#services/team/team_locks'

export const PORTAL_ROLES = [ROLES.administrator, ROLES.developer]

/** A member of the merchant with a Portal role (inactive included), locked for the transaction. */
export function lockMember(trx: TransactionClientContract, merchantId: number, memberId: string) {
  return lockTeamRow(
    User.query({ client: trx }).whereIn('role', PORTAL_ROLES),
    merchantId,
    memberId
  )
}

/** The sole ACTIVE administrator can be neither demoted nor removed (inactive ones do not count). */
export async function ensureAnotherActiveAdministrator(
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
