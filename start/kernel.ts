/*
| HTTP kernel: server middleware run on every request (routes or not) and router
| middleware on matched routes. Each route's own stack is registered with it
| (start/register_endpoint.ts).
*/
import router from '@adonisjs/core/services/router'
import server from '@adonisjs/core/services/server'

server.errorHandler(() => import('#exceptions/handler'))

server.use([
  () => import('#middleware/request_context_middleware'),
  () => import('#middleware/container_bindings_middleware'),
])

router.use([() => import('@adonisjs/auth/initialize_auth_middleware')])
