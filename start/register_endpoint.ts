/*
| Registers an endpoint declaration (app/http/endpoint.ts) with the router: its
| method, path and name, each step of its stack as a named middleware (its name and
| arguments are what router.toJSON() shows), in the stack's order, and its handler
| (start/endpoint_handler.ts), named `Controller.action` for `node ace list:routes`.
|
| Middleware and controllers keep no state between requests, so each is made once
| per process and called directly. The router's lazy class references would instead
| resolve each one through the container on every request (an instance, its method's
| dependencies and a promise per step): the largest allocator of a Portal read, whose
| garbage collections paused the loop for every merchant.
*/
import router from '@adonisjs/core/services/router'
import type { HttpContext } from '@adonisjs/core/http'
import type { Constructor, LazyImport } from '@adonisjs/core/types/common'
import type { NextFn, ParsedNamedMiddleware } from '@adonisjs/core/types/http'
import type { ActionsOf, Endpoint } from '#http/endpoint'
import type { StackStep } from '#http/stacks'
import { headersOf } from '#http/cache_policy'
import { handlerOf } from '#start/endpoint_handler'
import AppClientAuthMiddleware from '#middleware/app_client_auth_middleware'
import BodyMiddleware from '#middleware/body_middleware'
import LimitMiddleware, { type ThrottledAuditWriter } from '#middleware/limit_middleware'
import MachineAuthMiddleware from '#middleware/machine_auth_middleware'
import MerchantScopeMiddleware from '#middleware/merchant_scope_middleware'
import PortalAuthMiddleware from '#middleware/portal_auth_middleware'
import PrivateCacheMiddleware from '#middleware/private_cache_middleware'
import RawBodyMiddleware from '#middleware/raw_body_middleware'
import RoleMiddleware from '#middleware/role_middleware'
import { audit as auditTrail } from '#services/audit/audit_trail'

// Handed to the limit middleware here, so that middleware import no services. A
// refusal has no transaction of its own to join.
const writeThrottled: ThrottledAuditWriter = (actor, record) => auditTrail(undefined, actor, record)

interface Middleware<Args> {
  handle(ctx: HttpContext, next: NextFn, args: Args): unknown
}

/** A step named as the router shows it, calling the one instance of its middleware. */
function named<Args>(
  name: string,
  middleware: Middleware<Args>,
  args?: Args
): ParsedNamedMiddleware {
  return {
    name,
    reference: middleware.constructor as ParsedNamedMiddleware['reference'],
    args,
    handle: (_resolver, ctx, next) => middleware.handle(ctx, next, args as Args),
  }
}

const MIDDLEWARE = {
  appClient: new AppClientAuthMiddleware(),
  body: new BodyMiddleware(),
  limit: new LimitMiddleware(),
  machineAuth: new MachineAuthMiddleware(),
  merchantScope: new MerchantScopeMiddleware(),
  portalAuth: new PortalAuthMiddleware(),
  privateCache: new PrivateCacheMiddleware(),
  rawBody: new RawBodyMiddleware(),
  role: new RoleMiddleware(),
}

function middlewareOf(step: StackStep): ParsedNamedMiddleware {
  switch (step.use) {
    case 'limit': {
      const { name, key, audit } = step.limit
      return named('limit', MIDDLEWARE.limit, {
        name,
        key,
        ...(audit ? { audit: { ...audit, write: writeThrottled } } : {}),
      })
    }
    case 'role':
      return named('role', MIDDLEWARE.role, { role: step.role })
    case 'machineAuth':
      return named('machineAuth', MIDDLEWARE.machineAuth, { scope: step.scope })
    case 'body':
      return named('body', MIDDLEWARE.body, step.options)
    case 'privateCache':
      return named('privateCache', MIDDLEWARE.privateCache, headersOf(step.policy))
    case 'portalAuth':
    case 'appClient':
    case 'merchantScope':
    case 'rawBody':
      return named(step.use, MIDDLEWARE[step.use])
  }
}

const METHODS = {
  get: ['GET', 'HEAD'],
  post: ['POST'],
  put: ['PUT'],
  patch: ['PATCH'],
  delete: ['DELETE'],
}

/**
 * Adds an endpoint to the router, served by the action of its name in the controller
 * (loaded on first use): `register(ENDPOINTS.profile.show, ProfileController)`.
 */
export function register<E extends Endpoint>(
  endpoint: E,
  controller: LazyImport<Constructor<Pick<ActionsOf<{ [K in E['action']]: E }>, E['action']>>>
) {
  const methods = endpoint.head === false ? ['GET'] : METHODS[endpoint.method]
  const route = router.route(endpoint.path, methods, handlerOf(endpoint, controller))
  route.as(endpoint.name)
  for (const [param, matcher] of Object.entries(endpoint.where ?? {})) route.where(param, matcher)
  if (endpoint.stack.steps.length) route.use(endpoint.stack.steps.map(middlewareOf))
}
