/*
| Team mutations (role change, removal, invitations, acceptance) of one merchant are
| serialized on the merchant's row: each opens its transaction by taking this lock
| first, then locks the rows it changes. One lock order everywhere, so no deadlock,
| and "is there another active administrator?" is answered with no concurrent
| change in flight (portal-api.md › Team: LAST_ADMINISTRATOR under concurrency).
*/
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { LucidModel, ModelQueryBuilderContract } from '@adonisjs/lucid/types/model'
import ApiError from '#exceptions/api_error'
import { ROLES } from '#models/user'
import type { UserActor } from '#auth/actor'

export async function lockMerchantTeam(trx: TransactionClientContract, merchantId: number) {
  return trx.from('merchants').where('id', merchantId).forUpdate().first() as Promise<{
    id: number
    is_active: boolean
    name: string
  } | null>
}

/**
 * The caller was an active administrator when the request was authenticated; a
 * concurrent mutation may have demoted or removed them since. Judged under the lock
 * (after `lockMerchantTeam`) by every administrator-only team mutation: 403 FORBIDDEN.
 */
export async function ensureActorStillAdministrator(
  trx: TransactionClientContract,
  actor: UserActor
) {
  const current = await trx
    .from('users')
    .where('id', actor.userId)
    .select('merchant_id', 'role', 'is_active')
    .first()
  if (
    !current ||
    Number(current.merchant_id) !== actor.merchantId ||
    current.role !== ROLES.administrator ||
    current.is_active !== true
  ) {
    throw ApiError.forbidden()
  }
}

/**
 * The opening of an administrator-only team mutation: the merchant's team lock, then
 * the caller re-checked under it (403). Returns the merchant row.
 */
export async function lockTeamAsAdministrator(trx: TransactionClientContract, actor: UserActor) {
  const merchant = await lockMerchantTeam(trx, actor.merchantId)
  await ensureActorStillAdministrator(trx, actor)
  return merchant
}

/**
 * The row of `query` with route id `id` that belongs to the merchant (a member, an
 * invitation), locked FOR UPDATE for the transaction; 404 when there is none.
 */
export async function lockTeamRow<Model extends LucidModel>(
  query: ModelQueryBuilderContract<Model>,
  merchantId: number,
  id: string
): Promise<InstanceType<Model>> {
  const row = await query.where('id', id).where('merchant_id', merchantId).forUpdate().first()
  if (!row) throw ApiError.notFound()
  return row
}
