/*
| HTTP kernel: server middleware run on every request (routes or not). Each route's
| own stack is registered with it (start/register_endpoint.ts); there is no router
| middleware (the auth package's authenticator is made by the machine-auth middleware,
| its one user).
|
| The server would resolve each server middleware through the container on every
| request (a new instance, its method's dependencies and a promise per step). The
| request context middleware keeps no state between requests: its one instance is
| called directly, as the route middleware are. Nothing resolves HttpContext or
| Logger from the container, so nothing binds them per request.
*/
import server from '@adonisjs/core/services/server'
import RequestContextMiddleware from '#middleware/request_context_middleware'

server.errorHandler(() => import('#exceptions/handler'))

const requestContextImport = () => import('#middleware/request_context_middleware')
server.use([requestContextImport])

const requestContext = new RequestContextMiddleware()
for (const entry of server.getMiddlewareList()) {
  if (entry.reference === requestContextImport) {
    entry.handle = (_resolver, ctx, next) => requestContext.handle(ctx, next)
  }
}
