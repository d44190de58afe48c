/*
| HTTP kernel: server middleware run on every request (routes or not). Each route's
| own stack is registered with it (start/register_endpoint.ts); there is no router
| middleware (the auth package's authenticator is made by the machine-auth middleware,
| its one user).
|
| The request context middleware keeps no state between requests: its one instance is
| called directly (app/platform/server_middleware.ts), as the route middleware are.
| Nothing resolves HttpContext or Logger from the container, so nothing binds them per
| request.
*/
import server from '@adonisjs/core/services/server'
import RequestContextMiddleware from '#middleware/request_context_middleware'
import { callServerMiddlewareDirectly } from '#platform/server_middleware'

server.errorHandler(() => import('#exceptions/handler'))

const requestContextImport = () => import('#middleware/request_context_middleware')
server.use([requestContextImport])
callServerMiddlewareDirectly(requestContextImport, new RequestContextMiddleware())
