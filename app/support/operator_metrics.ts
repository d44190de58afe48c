/*
| Prometheus metrics for operators (decisions.md §3
| and §6: GET /metrics on METRICS_PORT/METRICS_HOST, never on the API port).
|
| Built on prom-client, the de facto Node client for the Prometheus text format: one
| registry of the whole process, the default Node/process metrics, and the service's
| own series below. Every label value comes from a closed set defined in code (route
| names or patterns, limit names, mail classes, fixed outcomes): never a raw path, an
| id, an email or anything else a caller sent. The names are documented in
| docs/operations.md.
|
| Other modules record through the small functions at the bottom
| (`recordDeliveries('created')`, `recordImportRows('imported', n)`, ...), so nobody
| needs to know prom-client to count something.
*/
import { hostname } from 'node:os'
import {
  Counter,
  Gauge,
  Histogram,
  Pushgateway,
  Registry,
  collectDefaultMetrics,
} from 'prom-client'
import type { LimitName } from '#limits/limits'
import { RequestPathHistogram } from '#platform/request_path_histogram'
import type { LaneRefusal } from '#platform/lane_refusal'

export const registry = new Registry()
// Node and process metrics, among them the event-loop delay: prom-client's
// perf_hooks.monitorEventLoopDelay sampled every 10 ms, whose p50/p90/p99, min, max,
// mean and stddev (nodejs_eventloop_lag_*_seconds) cover the time since the previous
// scrape: each scrape reads them and starts a new window.
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 })

/** HTTP methods a label may carry; anything else (Node accepts a few exotic ones) is OTHER. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

export const httpRequests = new Counter({
  name: 'portal_http_requests_total',
  help: 'HTTP requests answered, by route name (or route pattern when unnamed), method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
})

// Observed on every request: the request path's histogram (the same exposition).
export const httpRequestDuration = new RequestPathHistogram({
  name: 'portal_http_request_duration_seconds',
  help: 'Time from request received to response finished, by route, method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
})

// Connections of the API server (app/http/connection_cap.ts); the open ones are sampled at scrape.
export const httpConnections = new Gauge({
  name: 'portal_http_connections',
  help: 'Connections the API server holds open, by state: open (now), max (MAX_CONNECTIONS).',
  labelNames: ['state'] as const,
  registers: [registry],
})

export const httpConnectionsDropped = new Counter({
  name: 'portal_http_connections_dropped_total',
  help: 'Connections closed as they arrived, unread, because MAX_CONNECTIONS were already open.',
  registers: [registry],
})

export const rateLimitRefusals = new Counter({
  name: 'portal_rate_limit_refusals_total',
  help: 'Requests refused with 429 RATE_LIMITED, by limit name of the Limits table.',
  labelNames: ['limit'] as const,
  registers: [registry],
})

export const dbPoolConnections = new Gauge({
  name: 'portal_db_pool_connections',
  help: 'Database pool connections by state: used, free, pending_acquires (requests waiting for a connection), pending_creates.',
  labelNames: ['connection', 'state'] as const,
  registers: [registry],
})

export const dbPoolMax = new Gauge({
  name: 'portal_db_pool_max_connections',
  help: 'Configured maximum size of each database pool.',
  labelNames: ['connection'] as const,
  registers: [registry],
})

// Observed on every pool acquisition, several per request.
export const dbPoolAcquireWait = new RequestPathHistogram({
  name: 'portal_db_pool_acquire_wait_seconds',
  help: 'Time a query waited for a pool connection (acquire request to success).',
  labelNames: ['connection'] as const,
  buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5],
  registers: [registry],
})

export const dbPoolAcquireFailures = new Counter({
  name: 'portal_db_pool_acquire_failures_total',
  help: 'Pool acquisitions that failed (timeout or connection error): requests answered 503.',
  labelNames: ['connection'] as const,
  registers: [registry],
})

export const mailSendFailures = new Counter({
  name: 'portal_mail_send_failures_total',
  help: 'Mails the transport failed to send, by mail class and transport.',
  labelNames: ['mail', 'transport'] as const,
  registers: [registry],
})

export const credentialDeliveries = new Counter({
  name: 'portal_credential_deliveries_total',
  help: 'Credential deliveries by event: created (issue, rotate), consumed (secret handed over), expired (removed unconsumed).',
  labelNames: ['event'] as const,
  registers: [registry],
})

export const importRows = new Counter({
  name: 'portal_import_rows_total',
  help: 'Collections import lines, by outcome: imported or rejected.',
  labelNames: ['outcome'] as const,
  registers: [registry],
})

export const purgeRows = new Counter({
  name: 'portal_history_purge_rows_total',
  help: 'Exchange evidence rows purged by history:purge.',
  registers: [registry],
})

export const operatorJobLastRun = new Gauge({
  name: 'portal_operator_job_last_run_timestamp_seconds',
  help: 'When an operator command (ace) last finished, by command and outcome (success, failure); pushed to the Pushgateway.',
  labelNames: ['job', 'outcome'] as const,
  registers: [registry],
})

export const laneTasks = new Gauge({
  name: 'portal_lane_tasks',
  help: 'Tasks of a bounded work lane (logo_image: image decoding and encoding) by state: running, queued.',
  labelNames: ['lane', 'state'] as const,
  registers: [registry],
})

export const laneWait = new Histogram({
  name: 'portal_lane_wait_seconds',
  help: 'Time a task admitted to a work lane waited for its place.',
  labelNames: ['lane'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
})

export const laneRefusals = new Counter({
  name: 'portal_lane_refusals_total',
  help: 'Tasks a work lane refused (answered 503 with Retry-After), by reason: queue_full, key_busy (the merchant already has its share of the places), key_budget (its share of the time).',
  labelNames: ['lane', 'reason'] as const,
  registers: [registry],
})

for (const event of ['created', 'consumed', 'expired']) credentialDeliveries.inc({ event }, 0)
for (const outcome of ['imported', 'rejected']) importRows.inc({ outcome }, 0)

/** Records one answered request. `route` is a route name or pattern (code-defined), never a path. */
export function recordHttpRequest(
  route: string | undefined,
  method: string,
  status: number,
  seconds: number
) {
  const labels = {
    route: route ?? 'unmatched',
    method: METHODS.has(method) ? method : 'OTHER',
    status: String(status),
  }
  httpRequests.inc(labels)
  httpRequestDuration.observe(labels, seconds)
}

export function recordDroppedConnection() {
  httpConnectionsDropped.inc()
}

export function recordRateLimitRefusal(limit: LimitName) {
  rateLimitRefusals.inc({ limit })
}

export function recordMailFailure(mail: string, transport: string) {
  mailSendFailures.inc({ mail, transport })
}

export function recordDeliveries(event: 'created' | 'consumed' | 'expired', count = 1) {
  if (count > 0) credentialDeliveries.inc({ event }, count)
}

export function recordImportRows(outcome: 'imported' | 'rejected', count: number) {
  if (count > 0) importRows.inc({ outcome }, count)
}

export function recordPurgedRows(count: number) {
  if (count > 0) purgeRows.inc(count)
}

export function recordLaneTasks(lane: string, running: number, queued: number) {
  laneTasks.set({ lane, state: 'running' }, running)
  laneTasks.set({ lane, state: 'queued' }, queued)
}

export function recordLaneWait(lane: string, seconds: number) {
  laneWait.observe({ lane }, seconds)
}

export function recordLaneRefusal(lane: string, reason: LaneRefusal) {
  laneRefusals.inc({ lane, reason })
}

/**
 * Operator commands run in short-lived processes nobody scrapes: with
 * METRICS_PUSHGATEWAY_URL set, a command pushes this process's metrics (import and
 * purge rows, deliveries expired by auth:prune, its last run) to a Prometheus
 * Pushgateway, grouped by command and host. A failed push is reported, never fatal.
 */
export async function pushJobMetrics(
  url: string | undefined,
  command: string,
  outcome: 'success' | 'failure'
) {
  if (!url) return
  const job = command.replaceAll(/[^a-zA-Z0-9_]/g, '_')
  operatorJobLastRun.set({ job, outcome }, Date.now() / 1000)
  await new Pushgateway(url, { timeout: 5_000 }, registry).pushAdd({
    jobName: `merchant_portal_${job}`,
    groupings: { instance: hostname() },
  })
}
