/*
| Audit records (portal-api.md, Events). Written with the caller's transaction so a
| mutation and its record commit or roll back together. Never given a secret:
| `metadata` is for value-free context (field names, counts, ids).
*/
import { DateTime } from 'luxon'
import type { TransactionClientContract, QueryClientContract } from '@adonisjs/lucid/types/database'
import type { HttpContext } from '@adonisjs/core/http'
import AuditLog from '#models/audit_log'

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
}
