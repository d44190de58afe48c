/*
| GET /portal/merchant/machine-clients: expired deliveries of the merchant are
| removed first (audited as a system action), then one page, newest ownership first.
| `delivery` is shown only to its issuing administrator while client and delivery
| remain usable.
*/
import { DateTime } from 'luxon'
import type { UserActor } from '#auth/actor'
import CredentialDelivery from '#models/credential_delivery'
import MerchantOauthClient from '#models/merchant_oauth_client'
import { removeExpiredDeliveries } from '#services/machine_clients/expired_deliveries'

export async function listMachineClients(
  actor: UserActor,
  input: { page: number; perPage: number }
) {
  const { page, perPage } = input
  const now = DateTime.now()
  await removeExpiredDeliveries(actor.merchantId, now, actor)

  const result = await MerchantOauthClient.query()
    .where('merchant_id', actor.merchantId)
    .preload('oauthClient')
    .orderBy('id', 'desc')
    .paginate(page, perPage)
  const ownerships = result.all()

  const deliveries = new Map<number, CredentialDelivery>()
  if (actor.role === 'administrator' && ownerships.length > 0) {
    const rows = await CredentialDelivery.query()
      .whereIn(
        'merchant_oauth_client_id',
        ownerships.map((ownership) => ownership.id)
      )
      .where('merchant_id', actor.merchantId)
      .where('issued_by_user_id', actor.userId)
      .where('expires_at', '>', now.toJSDate())
    for (const row of rows) deliveries.set(row.merchantOauthClientId, row)
  }

  const items = ownerships.map((ownership) => {
    const usable = ownership.isUsableAt(ownership.oauthClient, now)
    return {
      ownership,
      client: ownership.oauthClient,
      now,
      withDelivery: true,
      delivery: usable ? (deliveries.get(ownership.id) ?? null) : null,
    }
  })
  return { items, total: result.total, page, perPage }
}
