/*
| Small pieces shared by bench/history_page.ts and bench/noisy_neighbour.ts: flags,
| percentiles, autocannon rounds with every latency kept, the event-loop probes (a
| `/health/live` loop from outside, and the server's own monitorEventLoopDelay figures
| from its Prometheus listener), a peer process, and the machine line.
*/
import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync } from 'node:fs'
import os from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import autocannon from 'autocannon'
import './exit_on_signal.js'

export function flag(name: string, fallback: string) {
  const prefix = `--${name}=`
  return (
    process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length) ?? fallback
  )
}
export const numberFlag = (name: string, fallback: number) => Number(flag(name, String(fallback)))
export const hasFlag = (name: string) => process.argv.includes(`--${name}`)

/** The p-th percentile (0-100) of `values` (sorted here), rounded to 0.1; null when empty. */
export function percentile(values: number[], p: number) {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return +sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(1)
}

export const round1 = (value: number) => +value.toFixed(1)

export interface CannonRound {
  requests: number
  seconds: number
  non2xx: number
  latencies: number[]
}

/** One autocannon run, every response's latency kept (ms). */
export function cannon(options: autocannon.Options): Promise<CannonRound> {
  const latencies: number[] = []
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) =>
      error
        ? reject(error)
        : resolve({
            requests: result.requests.total,
            seconds: result.duration,
            non2xx: result.non2xx,
            latencies,
          })
    )
    instance.on('response', (_client, _status, _bytes, time) => latencies.push(time))
  })
}

/** req/s and p50/p95/p99 of several rounds taken together. */
export function summary(rounds: CannonRound[]) {
  const latencies = rounds.flatMap((round) => round.latencies)
  const requests = rounds.reduce((sum, round) => sum + round.requests, 0)
  const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0)
  return {
    requests_per_second: round1(requests / seconds),
    p50_ms: percentile(latencies, 50),
    p95_ms: percentile(latencies, 95),
    p99_ms: percentile(latencies, 99),
    non_2xx: rounds.reduce((sum, round) => sum + round.non2xx, 0),
  }
}

/** Milliseconds of one request, its body read; throws unless the status is `expected`. */
export async function timed(url: string, init: RequestInit = {}, expected = 200) {
  const started = performance.now()
  const response = await fetch(url, init)
  await response.arrayBuffer()
  const elapsed = performance.now() - started
  if (response.status !== expected) throw new Error(`${url}: ${response.status}`)
  return elapsed
}

/** Probe figures of `/health/live` round trips (ms). */
export function probeFigures(latencies: number[]) {
  return {
    probes: latencies.length,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    max_ms: latencies.length ? round1(Math.max(...latencies)) : null,
  }
}

/**
 * `GET /health/live` one after another (with `pauseMs` between) until stopped: how
 * long a request that needs nothing but the event loop waited. Only an upper bound of
 * the loop's delay (the probe's own round trip and this process's loop are in it).
 * Each sample keeps when it was sent (performance.now()), to be cut into phases.
 */
export function healthProbe(base: string, pauseMs = 20) {
  const samples: Array<{ at: number; ms: number }> = []
  let running = true
  const loop = (async () => {
    while (running) {
      const at = performance.now()
      samples.push({ at, ms: await timed(`${base}/health/live`).catch(() => 60_000) })
      await delay(pauseMs)
    }
  })()
  return {
    samples,
    async stop() {
      running = false
      await loop
      return probeFigures(samples.map((sample) => sample.ms))
    },
  }
}

/**
 * The server's own event-loop delay from its Prometheus listener: prom-client's
 * `nodejs_eventloop_lag_*` (monitorEventLoopDelay, reset at every scrape, so a scrape
 * before a phase and one after give the phase's figures), and any `*event_loop*`
 * gauge of the service's own. Returns seconds as milliseconds; null without a listener.
 */
export async function eventLoopMetrics(metricsBase: string | null) {
  if (!metricsBase) return null
  const text = await fetch(`${metricsBase}/metrics`)
    .then((response) => response.text())
    .catch(() => null)
  if (text === null) return null
  const figures: Record<string, number> = {}
  for (const line of text.split('\n')) {
    const match = /^([a-z_]*event_?loop[a-z_]*(?:\{[^}]*\})?) ([0-9.e+-]+)$/i.exec(line)
    if (!match || !/seconds/.test(match[1])) continue
    figures[match[1].replace(/_seconds/, '_ms')] = round1(Number(match[2]) * 1000)
  }
  return figures
}

/**
 * Refuses to start when something already answers on one of `ports` (a server left
 * over from an interrupted run would be measured instead of the new one).
 */
export async function assertPortsFree(...ports: number[]) {
  for (const port of ports) {
    const answer = await fetch(`http://127.0.0.1:${port}/`).catch(() => null)
    if (answer) throw new Error(`port ${port} is in use: stop what listens there first`)
  }
}

/** Spawns a peer server (a TypeScript file under bench/peers) and waits for /health/live. */
export async function startPeer(file: string, port: number, env: Record<string, string>) {
  const child: ChildProcess = spawn('node', ['--import=@poppinss/ts-exec', file], {
    env: { ...process.env, ...env, PEER_PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const stop = () => child.kill('SIGTERM')
  process.on('exit', stop)
  const base = `http://127.0.0.1:${port}`
  for (let attempt = 0; ; attempt++) {
    if (attempt > 300 || child.exitCode !== null) {
      stop()
      throw new Error(`${file} did not start`)
    }
    const live = await fetch(`${base}/health/live`).catch(() => null)
    if (live?.ok) break
    await delay(100)
  }
  return { base, stop }
}

export const loadAverage = () => os.loadavg().map((load) => +load.toFixed(2))

export const machine = () =>
  `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`

/**
 * Sets every thread of this process to nice `level` (Linux keeps a nice level per
 * thread; threads made later inherit their creator's). False where it cannot be set
 * (another system, or lowering it without root or CAP_SYS_NICE).
 */
export function setThreadsPriority(level: number): boolean {
  try {
    for (const thread of readdirSync('/proc/self/task')) os.setPriority(Number(thread), level)
    return true
  } catch {
    return false
  }
}

/**
 * Sets only this process's main thread to nice `level` (threads it makes later inherit
 * it). A load generator's V8 helper threads stay where they are: raised with it, their
 * garbage collection took both cores from the server for up to 31 ms at a time (perf
 * sched, bench/results/soak_2026-11-29.md). False where it cannot be set.
 */
export function setMainThreadPriority(level: number): boolean {
  try {
    os.setPriority(level)
    return true
  } catch {
    return false
  }
}
