/*
| Team mutations (role change, removal, invitations, acceptance) of one merchant are
| serialized on the merchant's row: each opens its transaction by taking this lock
| first, then locks the rows it changes. One lock order everywhere, so no deadlock,
| and "is there another active administrator?" is answered with no concurrent
| change in flight (portal-api.md › Team: LAST_ADMINISTRATOR under concurrency).
*/
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'

export async function lockMerchantTeam(trx: TransactionClientContract, merchantId: number) {
  return trx.from('merchants').where('id', merchantId).forUpdate().first() as Promise<{
    id: number
    is_active: boolean
    name: string
  } | null>
}
