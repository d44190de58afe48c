/*
| Who is acting, as operations see it. Authentication middleware builds it once per
| request (`ctx.actor`); operations take `(actor, input)` and never see HttpContext,
| so commands, tests and controllers call the same code. Audit records take their
| actor, IP and request id from here.
*/
import type { HttpContext } from '@adonisjs/core/http'
import type { RoleName } from '#models/user'
import type { PortalAccessToken } from '#auth/portal_access_tokens'
import type { SessionMerchant, SessionUser } from '#auth/session_columns'
import { callerRequestIdOf } from '#http/request_id'

export type ActorKind = 'user' | 'system' | 'portal_application' | 'anonymous'

export interface Actor {
  kind: ActorKind
  userId: number | null
  merchantId: number | null
  role: RoleName | null
  /** Client IP as resolved through TRUSTED_PROXIES; null outside HTTP. */
  ip: string | null
  /** The service's own id of this request; null outside HTTP. */
  requestId: string | null
  /** The well-formed X-Request-Id the caller sent, for correlation only (app/http/request_id.ts). */
  callerRequestId: string | null
}

/** A signed-in Portal user (PAT routes). */
export interface UserActor extends Actor {
  kind: 'user'
  userId: number
  merchantId: number
  role: RoleName
}

/** What a verified PAT opened (portal_auth_middleware.ts). */
export interface PortalSession {
  /**
   * The columns the token's statement read (app/auth/portal_access_tokens.ts ›
   * SESSION_USER_COLUMNS, SESSION_MERCHANT_COLUMNS), as plain values: read anything
   * else from the database.
   */
  user: SessionUser
  merchant: SessionMerchant
  role: RoleName
  token: PortalAccessToken
}

/** The actor of a PAT route: the signed-in user, with the session its token opened. */
export interface PortalActor extends UserActor {
  session: PortalSession
}

/** The Portal application acting without a user (invitation acceptance). */
export interface ApplicationActor extends Actor {
  kind: 'portal_application'
  portalClientId: number
}

/** Operator commands and background clean-ups. */
export const SYSTEM_ACTOR: Actor = Object.freeze({
  kind: 'system',
  userId: null,
  merchantId: null,
  role: null,
  ip: null,
  requestId: null,
  callerRequestId: null,
})

/** Where a request comes from: its client IP (through TRUSTED_PROXIES) and request ids. */
function requestOrigin(ctx: HttpContext): Pick<Actor, 'ip' | 'requestId' | 'callerRequestId'> {
  return {
    ip: ctx.request.ip(),
    requestId: ctx.request.id() ?? null,
    callerRequestId: callerRequestIdOf(ctx.request.request),
  }
}

/** The caller of a request before (or without) authentication: its IP and request id. */
export function anonymousActor(ctx: HttpContext, kind: ActorKind = 'anonymous'): Actor {
  return {
    kind,
    userId: null,
    merchantId: null,
    role: null,
    ...requestOrigin(ctx),
  }
}

export function portalActor(ctx: HttpContext, session: PortalSession): PortalActor {
  return {
    kind: 'user',
    userId: session.user.id,
    merchantId: session.merchant.id,
    role: session.role,
    ...requestOrigin(ctx),
    session,
  }
}

export function applicationActor(ctx: HttpContext, portalClientId: number): ApplicationActor {
  return {
    ...anonymousActor(ctx, 'portal_application'),
    kind: 'portal_application',
    portalClientId,
  }
}

/** The actor of a request: the signed-in user when authenticated, else the anonymous caller. */
export function actorOf(ctx: HttpContext): Actor {
  return ctx.actor ?? anonymousActor(ctx)
}
