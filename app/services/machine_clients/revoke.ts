/*
| POST /portal/merchant/machine-clients/{client}/revoke: the client, its access tokens
| and its deliveries. The ownership row is locked, so a repeat waits and then sees
| the revocation (409).
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import type { UserActor } from '#auth/actor'
import OauthClient from '#models/oauth_client'
import { AuditActions } from '#services/audit/actions'
import { audit } from '#services/audit/audit_trail'
import { requireCurrentPassword } from '#services/users/current_password'
import { TARGET_CLIENT, lockManagedClient } from '#services/machine_clients/managed_clients'

export async function revokeMachineClient(
  actor: UserActor,
  ownershipId: string,
  input: { reason: string; current_password: string },
  options: { signal?: AbortSignal } = {}
) {
  await requireCurrentPassword(
    actor,
    input.current_password,
    { action: AuditActions.machineClientRevoke, target: { type: TARGET_CLIENT, id: ownershipId } },
    options.signal
  )
  const now = DateTime.now()
  return db.transaction(async (trx) => {
    const { ownership, client } = await lockManagedClient(trx, actor.merchantId, ownershipId)
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

    await audit(trx, actor, {
      action: AuditActions.machineClientRevoke,
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
