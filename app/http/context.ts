/*
| What authentication middleware puts on the request context.
*/
import type PortalClient from '#models/portal_client'
import type { RoleName } from '#models/user'
import type { PortalAccessToken } from '#auth/portal_access_tokens'
import type { SessionMerchant, SessionUser } from '#auth/session_columns'
import type { UserActor } from '#auth/actor'

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

declare module '@adonisjs/core/http' {
  interface HttpContext {
    /** Set by portal_auth_middleware on PAT routes. */
    portal?: PortalSession
    /** Who acts, for operations and audit records; set with `portal`. */
    actor?: UserActor
    /** Set by app_client_auth_middleware on login and invitation acceptance. */
    portalClient?: PortalClient
  }
}
