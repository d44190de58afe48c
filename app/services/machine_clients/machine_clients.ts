/*
| Machine clients and credential delivery (portal-api.md › Machine clients and
| credential delivery; the Machine client and Credential delivery state tables).
|
| Every mutation runs in one transaction with its audit record. Concurrency:
| - rotate and revoke lock the ownership row (then the OAuth client row), so a repeat
|   waits and then sees the new state (409);
| - consume locks the same ownership row, then deletes the delivery with a single
|   conditional DELETE ... RETURNING: only the caller whose DELETE removed the row
|   gets the secret; a revoke that committed first has already deleted the delivery.
*/
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import encryption from '@adonisjs/core/services/encryption'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import ApiError from '#exceptions/api_error'
import { isUniqueViolation } from '#support/database_errors'
import { requireCurrentPassword } from '#services/users/current_password'
import { actorFor, audit } from '#services/audit/audit_trail'
import { SYSTEM_ACTOR, type Actor as Requester } from '#auth/actor'
import { generateClientSecret, hashClientSecret } from '#auth/oauth_client_secrets'
import CredentialDelivery from '#models/credential_delivery'
import MerchantOauthClient from '#models/merchant_oauth_client'
import OauthClient from '#models/oauth_client'
import type Merchant from '#models/merchant'
import type User from '#models/user'
import oauthConfig from '#config/oauth'

export const DELIVERY_LIFETIME_MINUTES = 5

export interface Actor {
  user: User
  merchant: Merchant
}

export interface IssuedClient {
  ownership: MerchantOauthClient
  client: OauthClient
  delivery: CredentialDelivery
}

export interface DeliveredCredential {
  oauth_client_id: number
  oauth_client_secret: string
  grant_type: 'client_credentials'
  token_url: string
}

const TARGET_CLIENT = 'merchant_oauth_client'

/** The acting administrator as audit records name it, with the request's IP and id. */
function asActor(actor: Actor, requester: Requester) {
  return actorFor(requester, { userId: actor.user.id, merchantId: actor.merchant.id })
}
const TARGET_DELIVERY = 'credential_delivery'

/** The encryption purpose binds a ciphertext to its delivery row. */
const deliveryPurpose = (id: string) => `credential-delivery:${id}`

const gone = () => new ApiError(410, 'GONE', 'The credential delivery is no longer available.')

const labelTaken = () =>
  ApiError.field('label', 'The label is already used by another machine client of this merchant.')

export default class MachineClientService {
  /**
   * An ownership record of the merchant whose OAuth client is a Portal-managed
   * machine client. Framework, personal-access, password and ecosystem client
   * mappings are not machine clients here: 404 for rotate and revoke.
   */
  static async findManaged(merchant: Merchant, ownershipId: string) {
    const ownership = await MerchantOauthClient.query()
      .where('id', ownershipId)
      .where('merchant_id', merchant.id)
      .preload('oauthClient')
      .first()
    if (!ownership || !ownership.oauthClient.isMachineClient) throw ApiError.notFound()
    return ownership
  }

  /**
   * GET /portal/merchant/machine-clients: expired deliveries of the merchant are
   * removed first (audited as a system action), then one page, newest ownership first.
   * `delivery` is shown only to its issuing administrator while client and delivery
   * remain usable.
   */
  static async list(
    actor: Actor & { role: 'administrator' | 'developer' },
    page: number,
    perPage: number,
    requester: Requester
  ) {
    const now = DateTime.now()
    await MachineClientService.removeExpiredDeliveries(actor.merchant.id, now, requester)

    const result = await MerchantOauthClient.query()
      .where('merchant_id', actor.merchant.id)
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
        .where('merchant_id', actor.merchant.id)
        .where('issued_by_user_id', actor.user.id)
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

  /** Deletes the merchant's expired deliveries in their own transaction (committed). */
  static async removeExpiredDeliveries(
    merchantId: number,
    now: DateTime,
    requester: Requester = SYSTEM_ACTOR
  ) {
    await db.transaction((trx) =>
      MachineClientService.deleteExpired(trx, merchantId, now, requester)
    )
  }

  /** Deletes the merchant's (or one) expired deliveries inside `trx`; one system audit record each. */
  private static async deleteExpired(
    trx: TransactionClientContract,
    merchantId: number,
    now: DateTime,
    requester: Requester = SYSTEM_ACTOR,
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

  /** POST /portal/merchant/machine-clients */
  static async issue(
    actor: Actor,
    input: { label: string; reason: string; current_password: string },
    requester: Requester
  ): Promise<IssuedClient & { now: DateTime }> {
    await requireCurrentPassword(asActor(actor, requester), input.current_password, {
      action: 'machine_client.issue',
      target: { type: TARGET_CLIENT, id: 'new' },
    })
    const now = DateTime.now()
    const issued = await MachineClientService.withLabelGuard(() =>
      db.transaction(async (trx) => {
        await MachineClientService.assertLabelFree(trx, actor.merchant.id, input.label)
        const created = await MachineClientService.createClient(trx, actor, input, null, now)
        await audit(trx, asActor(actor, requester), {
          action: 'machine_client.issue',
          outcome: 'success',
          reason: input.reason,
          metadata: {
            oauth_client_id: created.client.id,
            label: input.label,
            delivery_id: created.delivery.id,
          },
          target: { type: TARGET_CLIENT, id: created.ownership.id },
        })
        return created
      })
    )
    return { ...issued, now }
  }

  /** POST /portal/merchant/machine-clients/{client}/rotate */
  static async rotate(
    actor: Actor,
    ownershipId: string,
    input: { label: string; reason: string; current_password: string; overlap_minutes: number },
    requester: Requester
  ): Promise<IssuedClient & { now: DateTime }> {
    await requireCurrentPassword(asActor(actor, requester), input.current_password, {
      action: 'machine_client.rotate',
      target: { type: TARGET_CLIENT, id: ownershipId },
    })
    const now = DateTime.now()
    const issued = await MachineClientService.withLabelGuard(() =>
      db.transaction(async (trx) => {
        const { ownership: prior, client: priorClient } = await MachineClientService.lock(
          trx,
          actor.merchant.id,
          ownershipId
        )
        if (prior.rotationDeadlineAt !== null || !prior.isUsableAt(priorClient, now)) {
          throw ApiError.conflict(
            'CONFLICT',
            'The machine client is already being rotated or is no longer available.'
          )
        }
        await MachineClientService.assertLabelFree(trx, actor.merchant.id, input.label)
        const created = await MachineClientService.createClient(trx, actor, input, prior.id, now)
        prior.useTransaction(trx)
        prior.rotationDeadlineAt = now.plus({ minutes: input.overlap_minutes })
        await prior.save()
        await audit(trx, asActor(actor, requester), {
          action: 'machine_client.rotate',
          outcome: 'success',
          reason: input.reason,
          metadata: {
            oauth_client_id: priorClient.id,
            replacement_id: created.ownership.id,
            replacement_oauth_client_id: created.client.id,
            label: input.label,
            overlap_minutes: input.overlap_minutes,
            rotation_deadline_at: prior.rotationDeadlineAt.toUTC().toISO(),
            delivery_id: created.delivery.id,
          },
          target: { type: TARGET_CLIENT, id: prior.id },
        })
        return created
      })
    )
    return { ...issued, now }
  }

  /** POST /portal/merchant/machine-clients/{client}/revoke */
  static async revoke(
    actor: Actor,
    ownershipId: string,
    input: { reason: string; current_password: string },
    requester: Requester
  ) {
    await requireCurrentPassword(asActor(actor, requester), input.current_password, {
      action: 'machine_client.revoke',
      target: { type: TARGET_CLIENT, id: ownershipId },
    })
    const now = DateTime.now()
    return db.transaction(async (trx) => {
      const { ownership, client } = await MachineClientService.lock(
        trx,
        actor.merchant.id,
        ownershipId
      )
      if (ownership.revokedAt !== null || client.isRevoked) {
        throw ApiError.conflict('CONFLICT', 'The machine client is already revoked.')
      }
      client.useTransaction(trx)
      client.revokedAt = now
      await client.save()
      const tokensRevoked = await OauthClient.accessTokens.revokeAll(client.id, trx)

      ownership.useTransaction(trx)
      ownership.isActive = false
      ownership.revokedAt = now
      ownership.rotationDeadlineAt = null
      await ownership.save()

      const deliveriesDeleted = await trx
        .from('credential_deliveries')
        .where('merchant_oauth_client_id', ownership.id)
        .delete()

      await audit(trx, asActor(actor, requester), {
        action: 'machine_client.revoke',
        outcome: 'success',
        reason: input.reason,
        metadata: {
          oauth_client_id: client.id,
          access_tokens_revoked: Number(tokensRevoked) || 0,
          deliveries_deleted: Number(deliveriesDeleted) || 0,
        },
        target: { type: TARGET_CLIENT, id: ownership.id },
      })
      return { ownership, client, now }
    })
  }

  /**
   * POST /portal/merchant/credential-deliveries/{delivery}/consume. Resolution
   * order: unknown (consumed) 410; another actor or merchant 404; expired: removed,
   * committed, then 410; wrong password 422 (delivery kept, failure audited); then
   * the exactly-once handover.
   */
  static async findConsumable(
    actor: Actor,
    deliveryId: string,
    requester: Requester
  ): Promise<CredentialDelivery> {
    const delivery = await CredentialDelivery.find(deliveryId.toLowerCase())
    if (!delivery) throw gone()
    if (delivery.merchantId !== actor.merchant.id || delivery.issuedByUserId !== actor.user.id) {
      throw ApiError.notFound()
    }
    if (delivery.expiresAt <= DateTime.now()) {
      await MachineClientService.removeExpiredDeliveries(
        actor.merchant.id,
        DateTime.now(),
        requester
      )
      throw gone()
    }
    return delivery
  }

  /**
   * Hands over the secret of `delivery` (found by findConsumable, then the body
   * validated) once `password` is proven; re-checked under lock, so an expiry or a
   * racing consumer since the first look is 410.
   */
  static async consume(
    actor: Actor,
    delivery: CredentialDelivery,
    password: string,
    requester: Requester
  ): Promise<DeliveredCredential> {
    const id = delivery.id
    await requireCurrentPassword(asActor(actor, requester), password, {
      action: 'credential_delivery.consume',
      target: { type: TARGET_DELIVERY, id },
    })

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
        .where('issued_by_user_id', actor.user.id)
        .where('expires_at', '>', now.toJSDate())
        .delete()
        .returning(['encrypted_secret', 'oauth_client_id'])
      if (!row) {
        // Consumed by a racing caller, or expired since the first look: an expired
        // delivery is removed (committed) before the 410.
        await MachineClientService.deleteExpired(trx, actor.merchant.id, now, requester, id)
        return { secret: null }
      }

      const secret = encryption.decrypt<string>(row.encrypted_secret, deliveryPurpose(id))
      if (typeof secret !== 'string') throw new Error('Credential delivery cannot be decrypted.')
      await audit(trx, asActor(actor, requester), {
        action: 'credential_delivery.consume',
        outcome: 'success',
        metadata: { merchant_oauth_client_id: ownership.id, oauth_client_id: client.id },
        target: { type: TARGET_DELIVERY, id: id },
      })
      return { secret, oauthClientId: Number(row.oauth_client_id) }
    })
    if (outcome.secret === null) throw gone()
    return {
      oauth_client_id: outcome.oauthClientId!,
      oauth_client_secret: outcome.secret,
      grant_type: 'client_credentials',
      token_url: oauthConfig.tokenUrl,
    }
  }

  private static async lock(trx: TransactionClientContract, merchantId: number, id: string) {
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

  private static async assertLabelFree(
    trx: TransactionClientContract,
    merchantId: number,
    label: string
  ) {
    const taken = await MerchantOauthClient.query({ client: trx })
      .where('merchant_id', merchantId)
      .whereRaw('lower(label) = ?', [label.toLowerCase()])
      .first()
    if (taken) throw labelTaken()
  }

  /** Two concurrent issues with one label: the unique index decides; the loser gets 422. */
  private static async withLabelGuard<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation()
    } catch (error) {
      if (isUniqueViolation(error)) throw labelTaken()
      throw error
    }
  }

  private static async createClient(
    trx: TransactionClientContract,
    actor: Actor,
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
        merchantId: actor.merchant.id,
        oauthClientId: client.id,
        label: input.label,
        reason: input.reason,
        isActive: true,
        issuedByUserId: actor.user.id,
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
        merchantId: actor.merchant.id,
        merchantOauthClientId: ownership.id,
        oauthClientId: client.id,
        issuedByUserId: actor.user.id,
        encryptedSecret: encryption.encrypt(secret, undefined, deliveryPurpose(deliveryId)),
        expiresAt: now.plus({ minutes: DELIVERY_LIFETIME_MINUTES }),
      },
      { client: trx }
    )
    return { ownership, client, delivery }
  }
}
