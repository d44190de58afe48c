import type { UserActor } from '#auth/actor'
import User from '#models/user'
import { PORTAL_ROLES } from '#services/team/member_rules'

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
