/*
| Operator metrics wiring (app/support/operator_metrics.ts): every database pool is
| timed, and with METRICS_PORT set the web server opens the separate metrics listener
| (decisions.md §3, §6). Requests are counted and timed by the request context
| middleware (app/middleware/request_context_middleware.ts).
*/
import app from '@adonisjs/core/services/app'
import emitter from '@adonisjs/core/services/emitter'
import env from '#start/env'
import { instrumentPool, startMetricsServer } from '#platform/metrics_server'

emitter.on('db:connection:connect', (connection) => {
  instrumentPool(connection.name, (connection as any).pool)
})

const metricsPort = env.get('METRICS_PORT')
if (app.getEnvironment() === 'web' && metricsPort !== undefined) {
  const listener = await startMetricsServer(metricsPort, env.get('METRICS_HOST') ?? '127.0.0.1')
  app.terminating(() => listener.close())
}
