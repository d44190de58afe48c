/*
| A tiny round-robin load balancer for the rolling-restart test, doing what a real one
| does and nothing more: it polls each backend's GET /health/ready (every
| HEALTH_INTERVAL_MS), sends each request to the next healthy backend, and never
| retries: a request that fails on its backend is answered 502 and counted, so a lost
| request cannot be hidden by the balancer.
*/
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Instance } from './instances.js'
import { statusOf } from './instances.js'
import { route } from '#tests/helpers/routes'

export const HEALTH_INTERVAL_MS = 100

/** Hop-by-hop headers (RFC 9110 §7.6.1) stay on their own connection. */
function endToEnd(headers: http.IncomingHttpHeaders) {
  const rest = { ...headers }
  delete rest.connection
  delete rest['keep-alive']
  return rest
}

interface Backend {
  instance: Instance
  healthy: boolean
  served: number
  slowProbes: number
}

export class RoundRobinBalancer {
  readonly backends: Backend[]
  /** Requests the balancer could not complete (backend error or no healthy backend). */
  failures = 0
  private next = 0
  private server?: http.Server
  private poller?: NodeJS.Timeout
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 })

  constructor(instances: Instance[]) {
    this.backends = instances.map((instance) => ({
      instance,
      healthy: false,
      served: 0,
      slowProbes: 0,
    }))
  }

  get url() {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`
  }

  /**
   * A 200 puts a backend in rotation; an explicit answer other than 200 (503 draining)
   * or a refused connection takes it out at once; a slow probe (the readiness check
   * queries the database, which is busy under load) only after two in a row.
   */
  private async poll() {
    await Promise.all(
      this.backends.map(async (backend) => {
        const started = Date.now()
        const status = await statusOf(`${backend.instance.url}${route('health.ready')}`, 2_000)
        if (status === 200) {
          backend.healthy = true
          backend.slowProbes = 0
        } else if (status !== null || Date.now() - started < 1_900) {
          backend.healthy = false
        } else if (++backend.slowProbes >= 2) {
          backend.healthy = false
        }
      })
    )
  }

  /** Resolves once `instance` is in rotation again. */
  async untilHealthy(instance: Instance, timeoutMs = 120_000) {
    const started = Date.now()
    const backend = this.backends.find((candidate) => candidate.instance === instance)!
    while (!backend.healthy) {
      if (Date.now() - started > timeoutMs)
        throw new Error(`${instance.options.name} never healthy`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  private pick(): Backend | undefined {
    for (let offset = 0; offset < this.backends.length; offset++) {
      const backend = this.backends[(this.next + offset) % this.backends.length]
      if (backend.healthy) {
        this.next = (this.next + offset + 1) % this.backends.length
        return backend
      }
    }
    return undefined
  }

  async start(port = 0) {
    await this.poll()
    const loop = async () => {
      await this.poll()
      this.poller = setTimeout(loop, HEALTH_INTERVAL_MS)
    }
    this.poller = setTimeout(loop, HEALTH_INTERVAL_MS)
    this.server = http.createServer((request, response) => {
      const backend = this.pick()
      if (!backend) {
        this.failures++
        response.writeHead(503).end()
        return
      }
      backend.served++
      const upstream = http.request(
        {
          host: '127.0.0.1',
          port: backend.instance.port,
          method: request.method,
          path: request.url,
          headers: endToEnd(request.headers),
          agent: this.agent,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers))
          answer.pipe(response)
        }
      )
      upstream.on('error', () => {
        this.failures++
        if (!response.headersSent) response.writeHead(502)
        response.end()
      })
      request.pipe(upstream)
    })
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve))
    return this
  }

  async stop() {
    clearTimeout(this.poller)
    this.agent.destroy()
    this.server?.closeAllConnections()
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve()
    )
  }
}
