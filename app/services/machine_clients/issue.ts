/*
| POST /portal/merchant/machine-clients: a new machine client and its credential
| delivery, after the current password.
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import type { UserActor } from '#auth/actor'
import { AuditActions } from '#services/audit/actions'
import { audit } from '#services/audit/audit_trail'
import { requireCurrentPassword } from '#services/users/current_password'
import {
  TARGET_CLIENT,
  assertLabelFree,
  createClient,
  withLabelGuard,
  type IssuedClient,
} from '#services/machine_clients/managed_clients'

export async function issueMachineClient(
  actor: UserActor,
  input: { label: string; reason: string; current_password: string },
  options: { signal?: AbortSignal } = {}
): Promise<IssuedClient & { now: DateTime }> {
  await requireCurrentPassword(
    actor,
    input.current_password,
    { action: AuditActions.machineClientIssue, target: { type: TARGET_CLIENT, id: 'new' } },
    options.signal
  )
  const now = DateTime.now()
  const issued = await withLabelGuard(() =>
    db.transaction(async (trx) => {
      await assertLabelFree(trx, actor.merchantId, input.label)
      const created = await createClient(trx, actor, input, null, now)
      await audit(trx, actor, {
        action: AuditActions.machineClientIssue,
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
