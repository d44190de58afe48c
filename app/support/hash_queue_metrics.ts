/*
| The password hash queue's series on /metrics (docs/operations.md › Password hashing
| on threads of its own). The queue keeps its own counts, which tests watch too; these
| series read them at scrape time, so app/platform/hash_queue.ts stays free of
| prom-client. Registered in the registry of #support/operator_metrics.
*/
import { Counter, Gauge } from 'prom-client'
import { registry } from '#support/operator_metrics'
import type { HashRefusal } from '#platform/hash_refusal'
import type { HashQueueStats } from '#platform/hash_queue_options'

/** What the password hash queue reports, read at scrape time (watchPasswordHashQueue). */
let passwordHashQueueStats: (() => HashQueueStats) | undefined
const HASH_REFUSALS: HashRefusal[] = ['queue_full', 'key_full', 'wait_too_long', 'waited_too_long']

export const passwordHashTasks = new Gauge({
  name: 'portal_password_hash_tasks',
  help: 'Password hashes by state: running (on a hashing thread), queued (waiting for their turn).',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    const stats = passwordHashQueueStats?.()
    this.set({ state: 'running' }, stats?.running ?? 0)
    this.set({ state: 'queued' }, stats?.queued ?? 0)
  },
})

// The queue keeps the running totals; a scrape copies them (they only grow).
export const passwordHashRefusals = new Counter({
  name: 'portal_password_hash_refusals_total',
  help: 'Password hashes refused (the login answered 503 with Retry-After), by reason: queue_full, key_full (one identity has its share of the places), wait_too_long (refused on arrival), waited_too_long (refused after waiting).',
  labelNames: ['reason'] as const,
  registers: [registry],
  collect() {
    const stats = passwordHashQueueStats?.()
    this.reset()
    for (const reason of HASH_REFUSALS) this.inc({ reason }, stats?.refused[reason] ?? 0)
  },
})

export const passwordHashesAbandoned = new Counter({
  name: 'portal_password_hashes_abandoned_total',
  help: 'Password hashes dropped before they ran because their client had gone.',
  registers: [registry],
  collect() {
    this.reset()
    this.inc(passwordHashQueueStats?.().abandoned ?? 0)
  },
})

/** The password hash queue (config/hash.ts) whose figures /metrics shows. */
export function watchPasswordHashQueue(stats: () => HashQueueStats) {
  passwordHashQueueStats = stats
}
