import { hash } from 'node:crypto'
import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { actorOf, type Actor } from '#auth/actor'
import { enforceLimit } from '#limits/enforce_limit'
import type { LimitName } from '#limits/limits'

/**
 * One part of a limit's key, as the contract's Limits table names it:
 * - `user`, `merchant`, `ip`: the acting user, their merchant, the client IP;
 * - `application`: the authenticated Portal application (login);
 * - `param:<name>`: a route parameter (e.g. the delivery id), lowercased;
 * - `body:<name>`: a digest of a body string field, trimmed and lowercased (login
 *   identity, invitation proof), so any submitted string fits the key column; the
 *   limit then has to follow body parsing on its route line;
 * - `op:<name>`: a fixed operation name, so each operation has its own bucket.
 */
export type LimitKeyPart =
  'user' | 'merchant' | 'ip' | 'application' | `param:${string}` | `body:${string}` | `op:${string}`

/**
 * How a route's refusals are audited (portal-api.md › Events: throttled mutations):
 * the action, and the target id from the route parameter `targetParam` or the
 * acting user with `targetUser`.
 */
export interface ThrottledAudit<Action extends string = string> {
  action: Action
  target?: string
  targetParam?: string
  targetUser?: boolean
}

/** The audit record of one refused request. */
export interface ThrottledRecord {
  action: string
  outcome: 'throttled'
  target: { type: string; id: string | number | null } | null
  metadata: Record<string, unknown> | null
}

/** Writes a refusal's record: the audit trail's, handed in where the route is registered. */
export type ThrottledAuditWriter = (actor: Actor, record: ThrottledRecord) => Promise<void>

export interface LimitOptions {
  name: LimitName
  key: LimitKeyPart[]
  /** When set, a refusal is audited through `write`. */
  audit?: ThrottledAudit & { write: ThrottledAuditWriter }
}

function digest(value: unknown): string {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : ''
  return hash('sha256', text, 'base64url')
}

/** The limiter key of a request; `ip:<ip>` alone is the one authentication failures use. */
export function limitKey(ctx: HttpContext, parts: LimitKeyPart[]): string {
  const actor = actorOf(ctx)
  return parts
    .map((part) => {
      if (part === 'user') return `user:${actor.userId ?? '-'}`
      if (part === 'merchant') return `merchant:${actor.merchantId ?? '-'}`
      if (part === 'ip') return `ip:${actor.ip}`
      if (part === 'application') return `app:${ctx.portalClient?.clientId ?? '-'}`
      if (part.startsWith('param:')) return String(ctx.params[part.slice(6)] ?? '').toLowerCase()
      if (part.startsWith('body:')) return digest(ctx.request.input(part.slice(5)))
      return part.slice(3)
    })
    .join(':')
}

/**
 * Who a throttled request is audited as: the signed-in user; on Portal application
 * routes the application (its id in metadata); else the anonymous caller.
 */
function throttledActor(ctx: HttpContext): {
  actor: Actor
  metadata: Record<string, unknown> | null
} {
  if (!ctx.actor && ctx.portalClient) {
    return {
      actor: { ...actorOf(ctx), kind: 'portal_application' },
      metadata: { portal_client_id: ctx.portalClient.id },
    }
  }
  return { actor: actorOf(ctx), metadata: null }
}

/**
 * A limit of a route's stack (app/http/endpoint.ts), with its key parts and audit. A
 * refused request counts too, and answers 429 RATE_LIMITED with Retry-After.
 */
export default class LimitMiddleware {
  async handle(ctx: HttpContext, next: NextFn, options: LimitOptions) {
    const onThrottled = options.audit
      ? async () => {
          const { action, target, targetParam, targetUser, write } = options.audit!
          const { actor, metadata } = throttledActor(ctx)
          const targetId = targetUser
            ? actor.userId
            : targetParam
              ? String(ctx.params[targetParam] ?? '').toLowerCase() || null
              : null
          await write(actor, {
            action,
            outcome: 'throttled',
            target: target ? { type: target, id: targetId } : null,
            metadata,
          })
        }
      : undefined
    await enforceLimit(options.name, limitKey(ctx, options.key), onThrottled)
    return next()
  }
}
