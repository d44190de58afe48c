/*
| Expired credential deliveries are removed when next seen (the list, a consumption),
| one system audit record each.
*/
import type { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { actorFor, audit } from '#services/audit/audit_trail'
import { SYSTEM_ACTOR, type Actor } from '#auth/actor'
import { TARGET_DELIVERY } from '#services/machine_clients/delivery_vault'

/** Deletes the merchant's expired deliveries in their own transaction (committed). */
export async function removeExpiredDeliveries(
  merchantId: number,
  now: DateTime,
  requester: Actor = SYSTEM_ACTOR
) {
  await db.transaction((trx) => deleteExpiredDeliveries(trx, merchantId, now, requester))
}

/** Deletes the merchant's (or one) expired deliveries inside `trx`; one system audit record each. */
export async function deleteExpiredDeliveries(
  trx: TransactionClientContract,
  merchantId: number,
  now: DateTime,
  requester: Actor = SYSTEM_ACTOR,
  deliveryId?: string
) {
  const query = trx
    .from('credential_deliveries')
    .where('merchant_id', merchantId)
    .where('expires_at', '<=', now.toJSDate())
  if (deliveryId !== undefined) query.where('id', deliveryId)
  const removed: Array<{ id: string; merchant_oauth_client_id: number }> = await query
    .delete()
    .returning(['id', 'merchant_oauth_client_id'])
  for (const row of removed) {
    await audit(trx, actorFor(requester, { kind: 'system', merchantId }), {
      action: 'credential_delivery.expired_removed',
      outcome: 'success',
      metadata: { merchant_oauth_client_id: row.merchant_oauth_client_id },
      target: { type: TARGET_DELIVERY, id: row.id },
    })
  }
}
