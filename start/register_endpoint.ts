/*
| Registers an endpoint declaration (app/http/endpoint.ts) with the router: its
| method, path, name and handler, and each step of its stack as the named middleware
| of start/kernel.ts, in the stack's order.
*/
import router from '@adonisjs/core/services/router'
import { middleware } from '#start/kernel'
import type { Endpoint, StackStep } from '#http/endpoint'
import type { ThrottledAuditWriter } from '#middleware/limit_middleware'
import { audit as auditTrail } from '#services/audit/audit_trail'

// Handed to the limit middleware here, so that middleware import no services. A
// refusal has no transaction of its own to join.
const writeThrottled: ThrottledAuditWriter = (actor, record) => auditTrail(undefined, actor, record)

function middlewareOf(step: StackStep) {
  switch (step.use) {
    case 'limit': {
      const { name, key, audit } = step.limit
      return middleware.limit({
        name,
        key,
        ...(audit ? { audit: { ...audit, write: writeThrottled } } : {}),
      })
    }
    case 'portalAuth':
      return middleware.portalAuth()
    case 'appClient':
      return middleware.appClient()
    case 'role':
      return middleware.role({ role: step.role })
    case 'body':
      return step.options ? middleware.body(step.options) : middleware.body()
    case 'merchantScope':
      return middleware.merchantScope()
    case 'privateCache':
      return step.options ? middleware.privateCache(step.options) : middleware.privateCache()
    case 'machineAuth':
      return middleware.machineAuth({ scope: step.scope })
    case 'rawBody':
      return middleware.rawBody()
  }
}

const METHODS = {
  get: ['GET', 'HEAD'],
  post: ['POST'],
  put: ['PUT'],
  patch: ['PATCH'],
  delete: ['DELETE'],
}

export function register(endpoint: Endpoint) {
  const methods = endpoint.head === false ? ['GET'] : METHODS[endpoint.method]
  const route = router.route(endpoint.path, methods, endpoint.handler).as(endpoint.name)
  for (const [param, matcher] of Object.entries(endpoint.where ?? {})) route.where(param, matcher)
  if (endpoint.stack.steps.length) route.use(endpoint.stack.steps.map(middlewareOf))
}
