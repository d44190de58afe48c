/*
| What authentication middleware puts on the request context.
*/
import type Merchant from '#models/merchant'
import type PortalClient from '#models/portal_client'
import type User from '#models/user'
import type { RoleName } from '#models/user'
import type { PortalAccessToken } from '#auth/portal_access_tokens'
import type { UserActor } from '#auth/actor'

export interface PortalSession {
  /**
   * Model instances, built on first use (most routes need only the actor), holding
   * only the columns the token's statement reads (app/auth/portal_access_tokens.ts ›
   * SESSION_USER_COLUMNS, SESSION_MERCHANT_COLUMNS): read anything else from the
   * database.
   */
  readonly user: User
  readonly merchant: Merchant
  /** The merchant's public reference, for the merchant-scope check. */
  merchantReferenceId: string
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
