/*
| Audit records (portal-api.md › Events): credential and key mutations, history
| reads, failed credential consumptions and acceptance confirmations, throttled
| mutations. One helper for every outcome. Written with the caller's transaction so
| a mutation and its record commit or roll back together. Never given a secret:
| `metadata` is for value-free context (field names, counts, ids).
*/
import { DateTime } from 'luxon'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import AuditLog from '#models/audit_log'
import type { Actor } from '#auth/actor'

export type AuditOutcome = 'success' | 'failure' | 'throttled'

export interface AuditTarget {
  type: string
  id: string | number | null
}

export interface AuditEvent {
  action: string
  outcome: AuditOutcome
  target?: AuditTarget | null
  reason?: string | null
  metadata?: Record<string, unknown> | null
}

/**
 * The actor a record names when it is not the requester itself: the user a proof
 * or link acts for, a clean-up acting for the system. Keeps the requester's IP and
 * request id. Without `kind`: a user when `userId` is set, else the system.
 */
export function actorFor(
  requester: Actor,
  who: { kind?: Actor['kind']; userId?: number | null; merchantId?: number | null }
): Actor {
  const userId = who.userId ?? null
  return {
    ...requester,
    kind: who.kind ?? (userId ? 'user' : 'system'),
    userId,
    merchantId: who.merchantId ?? null,
  }
}

/** Writes one audit record for `actor`, inside `client` (a transaction) when given. */
export async function audit(
  client: QueryClientContract | undefined,
  actor: Actor,
  event: AuditEvent
): Promise<void> {
  await AuditLog.create(
    {
      occurredAt: DateTime.now(),
      actorType: actor.kind === 'anonymous' ? 'system' : actor.kind,
      actorUserId: actor.userId,
      merchantId: actor.merchantId,
      action: event.action,
      targetType: event.target?.type ?? null,
      targetId:
        event.target?.id === undefined || event.target?.id === null
          ? null
          : String(event.target.id),
      reason: event.reason ?? null,
      ip: actor.ip,
      requestId: actor.requestId,
      outcome: event.outcome,
      metadata: event.metadata ?? null,
    },
    client ? { client } : undefined
  )
}
