/*
| What authentication middleware puts on the request context.
*/
import type PortalClient from '#models/portal_client'
import type { PortalActor } from '#auth/actor'

declare module '@adonisjs/core/http' {
  interface HttpContext {
    /** Who acts on a PAT route, with its session; set by portal_auth_middleware. */
    actor?: PortalActor
    /** Set by app_client_auth_middleware on login and invitation acceptance. */
    portalClient?: PortalClient
  }
}
