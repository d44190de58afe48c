/*
| Audit records (portal-api.md › Events): credential and key mutations, history
| reads, failed credential consumptions and acceptance confirmations, throttled
| mutations. One helper for every outcome. Written with the caller's transaction so
| a mutation and its record commit or roll back together. Never given a secret:
| `metadata` is for value-free context (field names, counts, ids). `request_id` is
| the service's own id of the request, never one the caller sent.
*/
import { createHash } from 'node:crypto'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
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

/**
 * Writes one audit record for `actor`, inside `client` (a transaction) when given.
 * A `throttled` outcome is counted on its key and window's record instead (see
 * recordThrottled).
 */
export async function audit(
  client: QueryClientContract | undefined,
  actor: Actor,
  event: AuditEvent
): Promise<void> {
  const record = recordOf(actor, event)
  if (event.outcome === 'throttled') {
    await recordThrottled(record, client)
    return
  }
  await AuditLog.create(
    { ...record, occurredAt: DateTime.now(), outcome: event.outcome },
    client ? { client } : undefined
  )
}

/** A piece of SQL with `?` placeholders and its bindings, in order. */
export interface SqlFragment {
  sql: string
  bindings: unknown[]
}

/**
 * One statement writing the record of a read only when `condition` (SQL boolean)
 * holds, with `computed` metadata keys read by SQL in the same snapshot; it returns
 * one row when written. A read route runs it beside its own reads instead of after
 * them: the condition is the route's existence check, so a 404 writes no record, and
 * the route answers only once the record is written (see auditedReadStatement's
 * callers).
 */
export function auditedReadStatement(
  actor: Actor,
  event: AuditEvent,
  condition: SqlFragment,
  computed: Record<string, SqlFragment> = {}
): SqlFragment {
  const record = recordOf(actor, event)
  const computedKeys = Object.keys(computed)
  const computedPairs = computedKeys.map((key) => `?::text, (${computed[key].sql})`)
  const metadata = computedPairs.length ? ` || jsonb_build_object(${computedPairs.join(', ')})` : ''
  return {
    sql: `INSERT INTO audit_logs (occurred_at, actor_type, actor_user_id, merchant_id, action,
            target_type, target_id, reason, ip, request_id, outcome, metadata)
          SELECT ?::timestamptz, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb${metadata}
          WHERE ${condition.sql}
          RETURNING id`,
    bindings: [
      DateTime.now().toUTC().toISO(),
      record.actorType,
      record.actorUserId,
      record.merchantId,
      record.action,
      record.targetType,
      record.targetId,
      record.reason,
      record.ip,
      record.requestId,
      event.outcome,
      JSON.stringify(record.metadata ?? {}),
      ...computedKeys.flatMap((key) => [key, ...computed[key].bindings]),
      ...condition.bindings,
    ],
  }
}

/** The columns of `event` by `actor` that every outcome's record shares. */
function recordOf(actor: Actor, event: AuditEvent): AuditColumns {
  return {
    actorType: actor.kind === 'anonymous' ? 'system' : actor.kind,
    actorUserId: actor.userId,
    merchantId: actor.merchantId,
    action: event.action,
    targetType: event.target?.type ?? null,
    targetId:
      event.target?.id === undefined || event.target?.id === null ? null : String(event.target.id),
    reason: event.reason ?? null,
    ip: actor.ip,
    requestId: actor.requestId,
    metadata: withCallerRequestId(event.metadata ?? null, actor.callerRequestId),
  }
}

/**
 * `request_id` is the service's own; the id the caller sent, if any, goes into the
 * metadata as `caller_request_id`, so the caller's logs can be joined to the record
 * without the caller choosing the record's id (app/http/request_id.ts).
 */
function withCallerRequestId(
  metadata: Record<string, unknown> | null,
  callerRequestId: string | null
): Record<string, unknown> | null {
  if (callerRequestId === null) return metadata
  return { ...metadata, caller_request_id: callerRequestId }
}

/** The columns of an audit record that every outcome shares (recordOf). */
interface AuditColumns {
  actorType: string
  actorUserId: number | null
  merchantId: number | null
  action: string
  targetType: string | null
  targetId: string | null
  reason: string | null
  ip: string | null
  requestId: string | null
  metadata: Record<string, unknown> | null
}

/** The window a throttled refusal is counted in: the current minute of the app clock. */
const THROTTLE_WINDOW = { minutes: 1 } as const

/**
 * Records a refused (throttled) request once per key and window. The
 * key is what the refusal is about (action, actor, merchant, target, IP); the first
 * refusal in a window inserts the record (`refused_count` 1, its request id and
 * time), every further one only increments `refused_count`. A flood of refused
 * requests therefore cannot grow the table by more than one row per key a minute.
 */
export async function recordThrottled(record: AuditColumns, client?: QueryClientContract) {
  const now = DateTime.now()
  const windowStart = now.toUTC().startOf('minute')
  const throttleKey = createHash('sha256')
    .update(
      JSON.stringify([
        record.action,
        record.actorType,
        record.actorUserId,
        record.merchantId,
        record.targetType,
        record.targetId,
        record.ip,
        windowStart.toMillis(),
        THROTTLE_WINDOW.minutes,
      ])
    )
    .digest('hex')
  const connection = client ?? db.connection()
  await connection
    .insertQuery()
    .table('audit_logs')
    .insert({
      occurred_at: now.toJSDate(),
      actor_type: record.actorType,
      actor_user_id: record.actorUserId,
      merchant_id: record.merchantId,
      action: record.action,
      target_type: record.targetType,
      target_id: record.targetId,
      reason: record.reason,
      ip: record.ip,
      request_id: record.requestId,
      outcome: 'throttled',
      metadata: record.metadata === null ? null : JSON.stringify(record.metadata),
      throttle_key: throttleKey,
      refused_count: 1,
    })
    .knexQuery.onConflict('throttle_key')
    .merge({ refused_count: connection.knexRawQuery('audit_logs.refused_count + 1') })
}
