/*
| POST /portal/merchant/machine-clients/{client}/rotate: a replacement client and its
| delivery; the prior one stays usable for the overlap. The ownership row is locked,
| so a repeat waits and then sees the rotation (409).
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import type { UserActor } from '#auth/actor'
import { AuditActions } from '#services/audit/actions'
import { audit } from '#services/audit/audit_trail'
import { requireCurrentPassword } from '#services/users/current_password'
import {
  TARGET_CLIENT,
  assertLabelFree,
  createClient,
  lockManagedClient,
  withLabelGuard,
  type IssuedClient,
} from '#services/machine_clients/managed_clients'

export async function rotateMachineClient(
  actor: UserActor,
  ownershipId: string,
  input: { label: string; reason: string; current_password: string; overlap_minutes: number },
  options: { signal?: AbortSignal } = {}
): Promise<IssuedClient & { now: DateTime }> {
  await requireCurrentPassword(
    actor,
    input.current_password,
    { action: AuditActions.machineClientRotate, target: { type: TARGET_CLIENT, id: ownershipId } },
    options.signal
  )
  const now = DateTime.now()
  const issued = await withLabelGuard(() =>
    db.transaction(async (trx) => {
      const { ownership: prior, client: priorClient } = await lockManagedClient(
        trx,
        actor.merchantId,
        ownershipId
      )
      if (prior.rotationDeadlineAt !== null || !prior.isUsableAt(priorClient, now)) {
        throw ApiError.conflict(
          'CONFLICT',
          'The machine client is already being rotated or is no longer available.'
        )
      }
      await assertLabelFree(trx, actor.merchantId, input.label)
      const created = await createClient(trx, actor, input, prior.id, now)
      prior.useTransaction(trx)
      prior.rotationDeadlineAt = now.plus({ minutes: input.overlap_minutes })
      await prior.save()
      await audit(trx, actor, {
        action: AuditActions.machineClientRotate,
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
