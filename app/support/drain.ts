/*
| Drain before shutdown (docs/operations.md › Rolling restarts). On SIGTERM a server
| behind a load balancer first says it is going away, keeps serving while the balancer
| notices, and only then stops listening:
| - GET /health/ready answers 503 `draining`, so health checks take it out of rotation;
| - every response carries `Connection: close`, so kept-alive client connections move
|   to other instances instead of meeting a closed socket;
| - after SHUTDOWN_DRAIN_MS (default 0: stop at once, as before) the server closes,
|   finishes the requests in flight and exits.
| Set SHUTDOWN_DRAIN_MS above the balancer's health-check interval times its
| unhealthy threshold.
*/
import server from '@adonisjs/core/services/server'
import settings from '#config/settings'

let draining = false

export function isDraining() {
  return draining
}

/** Marks the process as draining and resolves after SHUTDOWN_DRAIN_MS. */
export async function drain() {
  if (draining) return
  draining = true
  const nodeServer = server.getNodeServer()
  nodeServer?.prependListener('request', (_request, response) => {
    response.setHeader('Connection', 'close')
  })
  const ms = settings.shutdownDrainMs()
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms))
}
