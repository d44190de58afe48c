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
import hash from '@adonisjs/core/services/hash'
import encryption from '@adonisjs/core/services/encryption'
import type { HttpContext } from '@adonisjs/core/http'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import ApiError from '#exceptions/api_error'
import AuditLogService from '#services/audit_log_service'
import { generateClientSecret, hashClientSecret } from '#services/oauth_client_secrets'
import CredentialDelivery from '#models/credential_delivery'
import MerchantOauthClient from '#models/merchant_oauth_client'
import OauthClient from '#models/oauth_client'
import type Merchant from '#models/merchant'
import User from '#models/user'
import oauthConfig from '#config/oauth'
import { recordDeliveries } from '#support/operator_metrics'

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
const TARGET_DELIVERY = 'credential_delivery'

/** The encryption purpose binds a ciphertext to its delivery row. */
const deliveryPurpose = (id: string) => `credential-delivery:${id}`

export const wrongPassword = () =>
  ApiError.field('current_password', 'The current password is incorrect.')

const gone = () => new ApiError(410, 'GONE', 'The credential delivery is no longer available.')

/** Checks the acting administrator's password against the stored hash (read afresh). */
export async function currentPasswordMatches(user: User, password: string): Promise<boolean> {
  const fresh = await User.find(user.id)
  return fresh !== null && (await hash.verify(fresh.password, password))
}

async function auditPasswordFailure(
  actor: Actor,
  action: string,
  target: { type: string; id: string | number },
  ctx: HttpContext
) {
  await AuditLogService.record(
    undefined,
    {
      action,
      outcome: 'failure',
      actorUserId: actor.user.id,
      merchantId: actor.merchant.id,
      targetType: target.type,
      targetId: target.id,
      metadata: { failure: 'current_password_incorrect' },
    },
    ctx
  )
}

function isUniqueViolation(error: unknown) {
  return (error as { code?: string } | null)?.code === '23505'
}

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
    ctx: HttpContext
  ) {
    const now = DateTime.now()
    await MachineClientService.removeExpiredDeliveries(actor.merchant.id, now, ctx)

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
  static async removeExpiredDeliveries(merchantId: number, now: DateTime, ctx?: HttpContext) {
    await db.transaction((trx) => MachineClientService.deleteExpired(trx, merchantId, now, ctx))
  }

  /** Deletes the merchant's (or one) expired deliveries inside `trx`; one system audit record each. */
  private static async deleteExpired(
    trx: TransactionClientContract,
    merchantId: number,
    now: DateTime,
    ctx?: HttpContext,
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
    if (removed.length > 0) trx.after('commit', () => recordDeliveries('expired', removed.length))
    for (const row of removed) {
      await AuditLogService.record(
        trx,
        {
          action: 'credential_delivery.expired_removed',
          outcome: 'success',
          actorType: 'system',
          merchantId,
          targetType: TARGET_DELIVERY,
          targetId: row.id,
          metadata: { merchant_oauth_client_id: row.merchant_oauth_client_id },
        },
        ctx
      )
    }
  }

  /** POST /portal/merchant/machine-clients */
  static async issue(
    actor: Actor,
    input: { label: string; reason: string; current_password: string },
    ctx: HttpContext
  ): Promise<IssuedClient & { now: DateTime }> {
    if (!(await currentPasswordMatches(actor.user, input.current_password))) {
      await auditPasswordFailure(
        actor,
        'machine_client.issue',
        { type: TARGET_CLIENT, id: 'new' },
        ctx
      )
      throw wrongPassword()
    }
    const now = DateTime.now()
    const issued = await MachineClientService.withLabelGuard(() =>
      db.transaction(async (trx) => {
        await MachineClientService.assertLabelFree(trx, actor.merchant.id, input.label)
        const created = await MachineClientService.createClient(trx, actor, input, null, now)
        await AuditLogService.record(
          trx,
          {
            action: 'machine_client.issue',
            outcome: 'success',
            actorUserId: actor.user.id,
            merchantId: actor.merchant.id,
            targetType: TARGET_CLIENT,
            targetId: created.ownership.id,
            reason: input.reason,
            metadata: {
              oauth_client_id: created.client.id,
              label: input.label,
              delivery_id: created.delivery.id,
            },
          },
          ctx
        )
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
    ctx: HttpContext
  ): Promise<IssuedClient & { now: DateTime }> {
    if (!(await currentPasswordMatches(actor.user, input.current_password))) {
      await auditPasswordFailure(
        actor,
        'machine_client.rotate',
        { type: TARGET_CLIENT, id: ownershipId },
        ctx
      )
      throw wrongPassword()
    }
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
        await AuditLogService.record(
          trx,
          {
            action: 'machine_client.rotate',
            outcome: 'success',
            actorUserId: actor.user.id,
            merchantId: actor.merchant.id,
            targetType: TARGET_CLIENT,
            targetId: prior.id,
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
          },
          ctx
        )
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
    ctx: HttpContext
  ) {
    if (!(await currentPasswordMatches(actor.user, input.current_password))) {
      await auditPasswordFailure(
        actor,
        'machine_client.revoke',
        { type: TARGET_CLIENT, id: ownershipId },
        ctx
      )
      throw wrongPassword()
    }
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

      await AuditLogService.record(
        trx,
        {
          action: 'machine_client.revoke',
          outcome: 'success',
          actorUserId: actor.user.id,
          merchantId: actor.merchant.id,
          targetType: TARGET_CLIENT,
          targetId: ownership.id,
          reason: input.reason,
          metadata: {
            oauth_client_id: client.id,
            access_tokens_revoked: Number(tokensRevoked) || 0,
            deliveries_deleted: Number(deliveriesDeleted) || 0,
          },
        },
        ctx
      )
      return { ownership, client, now }
    })
  }

  /**
   * POST /portal/merchant/credential-deliveries/{delivery}/consume. Resolution
   * order: unknown (consumed) 410; another actor or merchant 404; expired: removed,
   * committed, then 410; wrong password 422 (delivery kept, failure audited); then
   * the exactly-once handover.
   */
  static async consume(
    actor: Actor,
    deliveryId: string,
    readPassword: () => Promise<string>,
    ctx: HttpContext
  ): Promise<DeliveredCredential> {
    const id = deliveryId.toLowerCase()
    const delivery = await CredentialDelivery.find(id)
    if (!delivery) throw gone()
    if (delivery.merchantId !== actor.merchant.id || delivery.issuedByUserId !== actor.user.id) {
      throw ApiError.notFound()
    }
    if (delivery.expiresAt <= DateTime.now()) {
      await MachineClientService.removeExpiredDeliveries(actor.merchant.id, DateTime.now(), ctx)
      throw gone()
    }

    const password = await readPassword()
    if (!(await currentPasswordMatches(actor.user, password))) {
      await auditPasswordFailure(
        actor,
        'credential_delivery.consume',
        { type: TARGET_DELIVERY, id },
        ctx
      )
      throw wrongPassword()
    }

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
        await MachineClientService.deleteExpired(trx, actor.merchant.id, now, ctx, id)
        return { secret: null }
      }

      const secret = encryption.decrypt<string>(row.encrypted_secret, deliveryPurpose(id))
      if (typeof secret !== 'string') throw new Error('Credential delivery cannot be decrypted.')
      await AuditLogService.record(
        trx,
        {
          action: 'credential_delivery.consume',
          outcome: 'success',
          actorUserId: actor.user.id,
          merchantId: actor.merchant.id,
          targetType: TARGET_DELIVERY,
          targetId: id,
          metadata: { merchant_oauth_client_id: ownership.id, oauth_client_id: client.id },
        },
        ctx
      )
      return { secret, oauthClientId: Number(row.oauth_client_id) }
    })
    if (outcome.secret === null) throw gone()
    recordDeliveries('consumed')
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
    trx.after('commit', () => recordDeliveries('created'))
    return { ownership, client, delivery }
  }
}
