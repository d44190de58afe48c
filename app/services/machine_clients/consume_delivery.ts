/*
| POST /portal/merchant/credential-deliveries/{delivery}/consume. Resolution order:
| unknown (consumed) 410; another actor or merchant 404; expired: removed,
| committed, then 410; wrong password 422 (delivery kept, failure audited); then
| the exactly-once handover.
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import type { UserActor } from '#auth/actor'
import CredentialDelivery from '#models/credential_delivery'
import MerchantOauthClient from '#models/merchant_oauth_client'
import OauthClient from '#models/oauth_client'
import oauthConfig from '#config/oauth'
import { AuditActions } from '#services/audit/actions'
import { audit } from '#services/audit/audit_trail'
import { requireCurrentPassword } from '#services/users/current_password'
import { TARGET_DELIVERY, deliveryGone, openSecret } from '#services/machine_clients/delivery_vault'
import {
  deleteExpiredDeliveries,
  removeExpiredDeliveries,
} from '#services/machine_clients/expired_deliveries'
import { recordDeliveries } from '#support/operator_metrics'

export interface DeliveredCredential {
  oauth_client_id: number
  oauth_client_secret: string
  grant_type: 'client_credentials'
  token_url: string
}

/** The actor's own unexpired delivery (404/410, the expired clean-up) before the body is validated. */
export async function findConsumableDelivery(
  actor: UserActor,
  deliveryId: string
): Promise<CredentialDelivery> {
  const delivery = await CredentialDelivery.find(deliveryId.toLowerCase())
  if (!delivery) throw deliveryGone()
  if (delivery.merchantId !== actor.merchantId || delivery.issuedByUserId !== actor.userId) {
    throw ApiError.notFound()
  }
  if (delivery.expiresAt <= DateTime.now()) {
    await removeExpiredDeliveries(actor.merchantId, DateTime.now(), actor)
    throw deliveryGone()
  }
  return delivery
}

/**
 * Hands over the secret of `delivery` (found by findConsumableDelivery, then the
 * body validated) once the current password is proven; re-checked under lock, so an
 * expiry or a racing consumer since the first look is 410.
 */
export async function consumeDelivery(
  actor: UserActor,
  delivery: CredentialDelivery,
  input: { current_password: string },
  options: { signal?: AbortSignal } = {}
): Promise<DeliveredCredential> {
  const id = delivery.id
  await requireCurrentPassword(
    actor,
    input.current_password,
    { action: AuditActions.credentialDeliveryConsume, target: { type: TARGET_DELIVERY, id } },
    options.signal
  )

  const outcome = await db.transaction(async (trx) => {
    const now = DateTime.now()
    const ownership = await MerchantOauthClient.query({ client: trx })
      .where('id', delivery.merchantOauthClientId)
      .forUpdate()
      .first()
    const client = ownership
      ? await OauthClient.query({ client: trx }).where('id', ownership.oauthClientId).first()
      : null
    if (!ownership || !client || !ownership.isUsableAt(client, now)) {
      // Client invalidated: the delivery can never be used; remove it.
      await trx.from('credential_deliveries').where('id', id).delete()
      return { secret: null }
    }

    const [row]: Array<{ encrypted_secret: string; oauth_client_id: number }> = await trx
      .from('credential_deliveries')
      .where('id', id)
      .where('issued_by_user_id', actor.userId)
      .where('expires_at', '>', now.toJSDate())
      .delete()
      .returning(['encrypted_secret', 'oauth_client_id'])
    if (!row) {
      // Consumed by a racing caller, or expired since the first look: an expired
      // delivery is removed (committed) before the 410.
      await deleteExpiredDeliveries(trx, actor.merchantId, now, actor, id)
      return { secret: null }
    }

    const secret = openSecret(row.encrypted_secret, id)
    await audit(trx, actor, {
      action: AuditActions.credentialDeliveryConsume,
      outcome: 'success',
      metadata: { merchant_oauth_client_id: ownership.id, oauth_client_id: client.id },
      target: { type: TARGET_DELIVERY, id: id },
    })
    return { secret, oauthClientId: Number(row.oauth_client_id) }
  })
  if (outcome.secret === null) throw deliveryGone()
  recordDeliveries('consumed')
  return {
    oauth_client_id: outcome.oauthClientId!,
    oauth_client_secret: outcome.secret,
    grant_type: 'client_credentials',
    token_url: oauthConfig.tokenUrl,
  }
}
