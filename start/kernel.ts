/*
| HTTP kernel: server middleware run on every request (routes or not), router
| middleware on matched routes, and the named middleware used by start/routes.ts.
*/
import router from '@adonisjs/core/services/router'
import server from '@adonisjs/core/services/server'

server.errorHandler(() => import('#exceptions/handler'))

server.use([
  () => import('#middleware/request_context_middleware'),
  () => import('#middleware/container_bindings_middleware'),
])

router.use([() => import('@adonisjs/auth/initialize_auth_middleware')])

export const middleware = router.named({
  appClient: () => import('#middleware/app_client_auth_middleware'),
  portalAuth: () => import('#middleware/portal_auth_middleware'),
  role: () => import('#middleware/role_middleware'),
  merchantScope: () => import('#middleware/merchant_scope_middleware'),
  privateCache: () => import('#middleware/private_cache_middleware'),
  machineAuth: () => import('#middleware/machine_auth_middleware'),
  // A limit of the contract's Limits table, with its key parts and audit of refusals.
  limit: () => import('#middleware/limit_middleware'),
  // The body is parsed only after authentication and role checks have passed.
  body: () => import('#middleware/body_middleware'),
  // The token endpoint's form body, parsed as it comes (its own errors are OAuth ones).
  rawBody: () => import('#middleware/raw_body_middleware'),
})
