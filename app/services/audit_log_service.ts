/*
| Audit records (portal-api.md, Events). Written with the caller's transaction so a
| mutation and its record commit or roll back together. Never given a secret:
| `metadata` is for value-free context (field names, counts, ids).
*/
import { DateTime } from 'luxon'
import type { TransactionClientContract, QueryClientContract } from '@adonisjs/lucid/types/database'
import type { HttpContext } from '@adonisjs/core/http'
import AuditLog from '#models/audit_log'
import { recordThrottled } from '#services/audit/audit_trail'

export type AuditOutcome = 'success' | 'failure' | 'throttled'

export interface AuditEntry {
  action: string
  outcome: AuditOutcome
  actorType?: 'user' | 'system' | 'portal_application'
  actorUserId?: number | null
  merchantId?: number | null
  targetType?: string | null
  targetId?: string | number | null
  reason?: string | null
  metadata?: Record<string, unknown> | null
}

export default class AuditLogService {
  static async record(
    client: TransactionClientContract | QueryClientContract | undefined,
    entry: AuditEntry,
    ctx?: HttpContext
  ) {
    if (entry.outcome === 'throttled') {
      // Counted once per key and window (issue 9 › 6).
      return recordThrottled(
        {
          actorType: entry.actorType ?? (entry.actorUserId ? 'user' : 'system'),
          actorUserId: entry.actorUserId ?? null,
          merchantId: entry.merchantId ?? null,
          action: entry.action,
          targetType: entry.targetType ?? null,
          targetId:
            entry.targetId === undefined || entry.targetId === null ? null : String(entry.targetId),
          reason: entry.reason ?? null,
          ip: ctx?.request.ip() ?? null,
          requestId: ctx?.request.id() ?? null,
          metadata: entry.metadata ?? null,
        },
        client
      )
    }
    return AuditLog.create(
      {
        occurredAt: DateTime.now(),
        actorType: entry.actorType ?? (entry.actorUserId ? 'user' : 'system'),
        actorUserId: entry.actorUserId ?? null,
        merchantId: entry.merchantId ?? null,
        action: entry.action,
        targetType: entry.targetType ?? null,
        targetId:
          entry.targetId === undefined || entry.targetId === null ? null : String(entry.targetId),
        reason: entry.reason ?? null,
        ip: ctx?.request.ip() ?? null,
        requestId: ctx?.request.id() ?? null,
        outcome: entry.outcome,
        metadata: entry.metadata ?? null,
      },
      client ? { client } : undefined
    )
  }

  /**
   * An `onThrottled` hook for enforceLimit (portal-api.md › Events: throttled
   * mutations are audited): records the refused request, with the signed-in user and
   * merchant as actor when there is one.
   */
  static throttled(
    ctx: HttpContext,
    action: string,
    target: { type: string; id: string | number | null } | null = null,
    extra: Pick<AuditEntry, 'actorType' | 'metadata'> = {}
  ) {
    return async () => {
      await AuditLogService.record(
        undefined,
        {
          action,
          outcome: 'throttled',
          actorUserId: ctx.portal?.user.id ?? null,
          merchantId: ctx.portal?.merchant.id ?? null,
          targetType: target?.type ?? null,
          targetId: target?.id ?? null,
          ...extra,
        },
        ctx
      )
    }
  }
}
