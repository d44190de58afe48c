/*
| Operator metrics wiring (app/support/operator_metrics.ts): every answered request
| is counted and timed under its route name (or pattern: never the raw path), every
| database pool is timed, and with METRICS_PORT set the web server opens the
| separate metrics listener (decisions.md §3, §6).
*/
import app from '@adonisjs/core/services/app'
import emitter from '@adonisjs/core/services/emitter'
import env from '#start/env'
import { recordHttpRequest } from '#support/operator_metrics'
import { instrumentPool, startMetricsServer } from '#support/metrics_server'

emitter.on('http:request_completed', ({ ctx, duration }) => {
  recordHttpRequest(
    ctx.route?.name ?? ctx.route?.pattern,
    ctx.request.method(),
    ctx.response.getStatus(),
    duration[0] + duration[1] / 1e9
  )
})

emitter.on('db:connection:connect', (connection) => {
  instrumentPool(connection.name, (connection as any).pool)
})

const metricsPort = env.get('METRICS_PORT')
if (app.getEnvironment() === 'web' && metricsPort !== undefined) {
  const listener = await startMetricsServer(metricsPort, env.get('METRICS_HOST') ?? '127.0.0.1')
  app.terminating(() => listener.close())
}
