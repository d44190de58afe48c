import { PortalTransformer } from '#transformers/portal_transformer'
import type { DateTime } from 'luxon'
import type MerchantOauthClient from '#models/merchant_oauth_client'
import type OauthClient from '#models/oauth_client'
import type CredentialDelivery from '#models/credential_delivery'
import type { DeliveredCredential } from '#services/machine_clients/consume_delivery'
import type {
  Credential,
  DeliveryReference,
  IssuedMachineClient,
  MachineClient,
  MachineClientListItem,
} from '#shapes/machine_client'
import { utcIso, utcIsoOrNull as iso } from '#transformers/timestamps'

/**
 * portal-api.md › Machine client metadata. `delivery` is added only for list items
 * (`withDelivery`), and is then `{id, expires_at}` or null. Never a secret or hash.
 */
export default class MachineClientTransformer extends PortalTransformer<{
  ownership: MerchantOauthClient
  client: OauthClient
  now: DateTime
  withDelivery?: boolean
  delivery?: CredentialDelivery | null
}> {
  toObject(): MachineClient | MachineClientListItem {
    const { ownership, client, now, withDelivery, delivery } = this.resource
    return {
      id: ownership.id,
      oauth_client_id: client.id,
      label: ownership.label,
      is_active: ownership.isUsableAt(client, now),
      created_at: iso(ownership.createdAt),
      last_used_at: iso(ownership.lastUsedAt),
      revoked_at: iso(ownership.revokedAt),
      rotation_deadline_at: iso(ownership.rotationDeadlineAt),
      replaces_merchant_oauth_client_id: ownership.replacesMerchantOauthClientId,
      ...(withDelivery ? { delivery: deliveryReference(delivery) } : {}),
    }
  }
}

export function deliveryReference(delivery: CredentialDelivery): DeliveryReference
export function deliveryReference(
  delivery: CredentialDelivery | null | undefined
): DeliveryReference | null
export function deliveryReference(delivery: CredentialDelivery | null | undefined) {
  return delivery ? { id: delivery.id, expires_at: utcIso(delivery.expiresAt) } : null
}

/** 201 of issue and rotate: `data.client` (metadata without `delivery`) and `data.delivery`. */
export class IssuedMachineClientTransformer extends PortalTransformer<{
  ownership: MerchantOauthClient
  client: OauthClient
  delivery: CredentialDelivery
  now: DateTime
}> {
  toObject(): IssuedMachineClient {
    const { ownership, client, delivery, now } = this.resource
    return {
      client: new MachineClientTransformer({ ownership, client, now }).toObject(),
      delivery: deliveryReference(delivery),
    }
  }
}

/** portal-api.md › Credential delivery: exactly the four fields, the secret shown this once. */
export class CredentialTransformer extends PortalTransformer<DeliveredCredential> {
  toObject(): Credential {
    const credential = this.resource
    return {
      oauth_client_id: credential.oauth_client_id,
      oauth_client_secret: credential.oauth_client_secret,
      grant_type: credential.grant_type,
      token_url: credential.token_url,
    }
  }
}
