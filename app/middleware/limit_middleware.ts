import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { actorOf } from '#auth/actor'
import { enforceLimit, type LimitName } from '#limits/limits'
import { audit } from '#services/audit/audit_trail'

/**
 * One part of a limit's key, as the contract's Limits table names it:
 * - `user`, `merchant`, `ip`: the acting user, their merchant, the client IP;
 * - `param:<name>`: a route parameter (e.g. the delivery id);
 * - `op:<name>`: a fixed operation name, so each operation has its own bucket.
 */
export type LimitKeyPart = 'user' | 'merchant' | 'ip' | `param:${string}` | `op:${string}`

export interface LimitOptions {
  name: LimitName
  key: LimitKeyPart[]
  /** When set, a refusal is audited (portal-api.md › Events: throttled mutations). */
  audit?: { action: string; target?: string; targetParam?: string }
}

function keyOf(ctx: HttpContext, parts: LimitKeyPart[]): string {
  const actor = actorOf(ctx)
  return parts
    .map((part) => {
      if (part === 'user') return `u${actor.userId ?? '-'}`
      if (part === 'merchant') return `m${actor.merchantId ?? '-'}`
      if (part === 'ip') return `ip${actor.ip}`
      if (part.startsWith('param:')) return String(ctx.params[part.slice(6)] ?? '').toLowerCase()
      return part.slice(3)
    })
    .join(':')
}

/**
 * A limit declared on its route line: `middleware.limit({name, key, audit})`. Runs
 * after authentication and the role check, before the body is read; a refused
 * request counts too, and answers 429 RATE_LIMITED with Retry-After.
 */
export default class LimitMiddleware {
  async handle(ctx: HttpContext, next: NextFn, options: LimitOptions) {
    const onThrottled = options.audit
      ? async () => {
          const { action, target, targetParam } = options.audit!
          await audit(undefined, actorOf(ctx), {
            action,
            outcome: 'throttled',
            target: target
              ? { type: target, id: targetParam ? String(ctx.params[targetParam]) : null }
              : null,
          })
        }
      : undefined
    await enforceLimit(options.name, keyOf(ctx, options.key), onThrottled)
    return next()
  }
}
