/*
| The operator metrics listener and the database pool instrumentation
| (decisions.md §3: METRICS_PORT, METRICS_HOST default 127.0.0.1; §6: GET /metrics
| on its own listener, never on the API port).
|
| A plain node:http server, outside the AdonisJS router on purpose: nothing of the
| API (routes, middleware, limits, auth) is reachable on it, and /metrics cannot be
| reached through the API port. It answers GET /metrics and 404 to anything else.
*/
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import db from '@adonisjs/lucid/services/db'
import {
  dbPoolAcquireFailures,
  dbPoolAcquireWait,
  dbPoolConnections,
  dbPoolMax,
  httpConnections,
  registry,
} from '#support/operator_metrics'
import { connectionCounts } from '#http/connection_cap'

interface TarnPool {
  max: number
  numUsed(): number
  numFree(): number
  numPendingAcquires(): number
  numPendingCreates(): number
  on(event: string, listener: (...args: any[]) => void): void
}

const instrumented = new WeakSet<object>()

/** Times every acquisition of `pool` (tarn emits acquireRequest/Success/Fail with an event id). */
export function instrumentPool(connection: string, pool: TarnPool | undefined) {
  if (!pool || instrumented.has(pool)) return
  instrumented.add(pool)
  // Milliseconds as doubles (performance.now): a BigInt a side, on every acquisition,
  // is a visible share of a short request's allocations.
  const started = new Map<number, number>()
  const labels = { connection }
  pool.on('acquireRequest', (eventId: number) => started.set(eventId, performance.now()))
  pool.on('acquireSuccess', (eventId: number) => {
    const at = started.get(eventId)
    started.delete(eventId)
    if (at !== undefined) dbPoolAcquireWait.observe(labels, (performance.now() - at) / 1000)
  })
  pool.on('acquireFail', (eventId: number) => {
    started.delete(eventId)
    dbPoolAcquireFailures.inc({ connection })
  })
}

function openPools(): Array<{ name: string; pool: TarnPool }> {
  const pools: Array<{ name: string; pool: TarnPool }> = []
  for (const [name, managed] of db.manager.connections) {
    const pool = (managed.connection as { pool?: TarnPool } | undefined)?.pool
    if (managed.state === 'open' && pool) pools.push({ name, pool })
  }
  return pools
}

/** Pool gauges are read when scraped; pools opened before instrumentation get timed from now on. */
export function samplePools() {
  dbPoolConnections.reset()
  dbPoolMax.reset()
  for (const { name, pool } of openPools()) {
    instrumentPool(name, pool)
    dbPoolConnections.set({ connection: name, state: 'used' }, pool.numUsed())
    dbPoolConnections.set({ connection: name, state: 'free' }, pool.numFree())
    dbPoolConnections.set(
      { connection: name, state: 'pending_acquires' },
      pool.numPendingAcquires()
    )
    dbPoolConnections.set({ connection: name, state: 'pending_creates' }, pool.numPendingCreates())
    dbPoolMax.set({ connection: name }, pool.max)
  }
}

/** The API server's connection gauges, read when scraped (none in a process without a server). */
async function sampleConnections() {
  httpConnections.reset()
  const counts = await connectionCounts()
  if (!counts) return
  httpConnections.set({ state: 'open' }, counts.open)
  httpConnections.set({ state: 'max' }, counts.max)
}

/** The exposition of every metric, pool and connection gauges sampled now. */
export async function metricsText() {
  samplePools()
  await sampleConnections()
  return registry.metrics()
}

/** Starts the metrics listener; resolves once it listens (port 0 picks a free port). */
export async function startMetricsServer(port: number, host = '127.0.0.1') {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0]
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n')
      return
    }
    metricsText().then(
      (body) => {
        response.writeHead(200, {
          'Content-Type': registry.contentType,
          'Cache-Control': 'no-store',
        })
        response.end(request.method === 'HEAD' ? undefined : body)
      },
      () => response.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics failed\n')
    )
  })
  // Scrapers keep connections alive; never let one hold shutdown up.
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
