/*
| Machine clients and credential delivery (portal-api.md › Machine clients and
| credential delivery; the Machine client and Credential delivery state tables):
| the records every operation shares. One file per operation beside this one
| (list, issue, rotate, revoke, consume_delivery), the delivery's secret in
| delivery_vault.ts and the clean-up of expired deliveries in expired_deliveries.ts.
|
| Every mutation runs in one transaction with its audit record. Concurrency:
| - rotate and revoke lock the ownership row (then the OAuth client row), so a repeat
|   waits and then sees the new state (409);
| - consume locks the same ownership row, then deletes the delivery with a single
|   conditional DELETE ... RETURNING: only the caller whose DELETE removed the row
|   gets the secret; a revoke that committed first has already deleted the delivery.
*/
import { randomUUID } from 'node:crypto'
import type { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import ApiError from '#exceptions/api_error'
import { onUniqueViolation } from '#support/database_errors'
import type { UserActor } from '#auth/actor'
import { generateClientSecret, hashClientSecret } from '#auth/oauth_client_secrets'
import CredentialDelivery from '#models/credential_delivery'
import MerchantOauthClient from '#models/merchant_oauth_client'
import OauthClient from '#models/oauth_client'
import { DELIVERY_LIFETIME_MINUTES, sealSecret } from '#services/machine_clients/delivery_vault'
import { recordDeliveries } from '#support/operator_metrics'
import { normalizeLabel } from '#support/machine_client_label'

export interface IssuedClient {
  ownership: MerchantOauthClient
  client: OauthClient
  delivery: CredentialDelivery
}

export const TARGET_CLIENT = 'merchant_oauth_client'

const labelTaken = () =>
  ApiError.field('label', 'The label is already used by another machine client of this merchant.')

/**
 * An ownership record of the merchant whose OAuth client is a Portal-managed
 * machine client. Framework, personal-access, password and ecosystem client
 * mappings are not machine clients here: 404 for rotate and revoke.
 */
export async function findManagedClient(merchantId: number, ownershipId: string) {
  const ownership = await MerchantOauthClient.query()
    .where('id', ownershipId)
    .where('merchant_id', merchantId)
    .preload('oauthClient')
    .first()
  if (!ownership || !ownership.oauthClient.isMachineClient) throw ApiError.notFound()
  return ownership
}

/** The ownership row, then its OAuth client row, locked FOR UPDATE; 404 unless a machine client. */
export async function lockManagedClient(
  trx: TransactionClientContract,
  merchantId: number,
  id: string
) {
  const ownership = await MerchantOauthClient.query({ client: trx })
    .where('id', id)
    .where('merchant_id', merchantId)
    .forUpdate()
    .first()
  const client = ownership
    ? await OauthClient.query({ client: trx })
        .where('id', ownership.oauthClientId)
        .forUpdate()
        .first()
    : null
  if (!ownership || !client || !client.isMachineClient) throw ApiError.notFound()
  return { ownership, client }
}

/** 422 when the merchant has a machine client (revoked ones included) with an equal label. */
export async function assertLabelFree(
  trx: TransactionClientContract,
  merchantId: number,
  label: string
) {
  const taken = await MerchantOauthClient.query({ client: trx })
    .where('merchant_id', merchantId)
    .where('label_normalized', normalizeLabel(label))
    .first()
  if (taken) throw labelTaken()
}

/** Two concurrent issues with one label: the unique index decides; the loser gets 422. */
export function withLabelGuard<T>(operation: () => Promise<T>): Promise<T> {
  return onUniqueViolation(operation, labelTaken)
}

/** A new machine client, its ownership by the actor's merchant and its credential delivery. */
export async function createClient(
  trx: TransactionClientContract,
  actor: UserActor,
  input: { label: string; reason: string },
  replaces: number | null,
  now: DateTime
): Promise<IssuedClient> {
  const secret = generateClientSecret()
  const client = await OauthClient.create(
    { name: input.label, kind: 'machine', secretHash: hashClientSecret(secret), revokedAt: null },
    { client: trx }
  )
  const ownership = await MerchantOauthClient.create(
    {
      merchantId: actor.merchantId,
      oauthClientId: client.id,
      label: input.label,
      reason: input.reason,
      isActive: true,
      issuedByUserId: actor.userId,
      replacesMerchantOauthClientId: replaces,
      rotationDeadlineAt: null,
      revokedAt: null,
      lastUsedAt: null,
    },
    { client: trx }
  )
  const deliveryId = randomUUID()
  const delivery = await CredentialDelivery.create(
    {
      id: deliveryId,
      merchantId: actor.merchantId,
      merchantOauthClientId: ownership.id,
      oauthClientId: client.id,
      issuedByUserId: actor.userId,
      encryptedSecret: sealSecret(secret, deliveryId),
      expiresAt: now.plus({ minutes: DELIVERY_LIFETIME_MINUTES }),
    },
    { client: trx }
  )
  trx.after('commit', () => recordDeliveries('created'))
  return { ownership, client, delivery }
}
