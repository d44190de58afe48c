/*
| Merchant B of bench/noisy_neighbour.ts, on a thread of its own: its `GET /portal/me`
| users, each calling every `me.intervalMs` (open loop, first call at a random phase),
| and its logins, one every `login.intervalMs` (correct password, identities in turn,
| each from a new client address), until told to stop; the samples go back to the main
| thread with wall-clock times. B's users are other people's browsers, not the process
| that loads the server for merchant A: on the main thread, B's timings included the
| load generator's own pauses (reading A's 100-item pages, building its uploads).
| The thread also asks for a higher CPU priority (nice -10, where allowed) than the
| load generator and the server, as a latency probe does: otherwise its own wait for
| a core on the shared two-core host (the loaded phase pauses it 20-30 ms) is counted
| as the server's latency. It measures only; it does no work the server waits for.
*/
import { readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setTimeout as delay } from 'node:timers/promises'
import { parentPort, workerData } from 'node:worker_threads'

export interface BInput {
  me: { url: string; bearers: string[]; intervalMs: number }
  login: {
    url: string
    headers: Record<string, string>
    identities: Array<{ username: string; password: string }>
    intervalMs: number
  }
}

export interface BSample {
  /** Wall-clock milliseconds (performance.timeOrigin + now) when it was sent. */
  at: number
  ms: number
  status: number
}

export interface BReport {
  me: BSample[]
  login: BSample[]
  unanswered: number
}

const { me, login } = workerData as BInput

/** This thread's id (Linux keeps a nice level per thread), or null elsewhere. */
function ownThreadId() {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop())
  } catch {
    return null
  }
}
const threadId = ownThreadId()

/** `true` when this thread now runs at nice -10 (Linux, and root or CAP_SYS_NICE). */
function raiseOwnPriority() {
  if (threadId === null) return false
  try {
    setPriority(threadId, -10)
    return true
  } catch {
    return false
  }
}
const raisedPriority = raiseOwnPriority()
const samples = { me: [] as BSample[], login: [] as BSample[] }
const loop = monitorEventLoopDelay({ resolution: 10 })
loop.enable()
let running = true
const inFlight = new Set<Promise<void>>()

async function call(into: BSample[], url: string, init: RequestInit) {
  const sent = performance.now()
  let status = 0
  try {
    const response = await fetch(url, init)
    await response.arrayBuffer()
    status = response.status
  } catch {
    status = 0
  }
  into.push({ at: performance.timeOrigin + sent, ms: performance.now() - sent, status })
}

/** Sends `request()` every `intervalMs` until stopped, whether or not earlier ones were answered. */
async function every(intervalMs: number, request: () => Promise<void>) {
  let due = performance.now() + Math.random() * intervalMs
  while (running) {
    await delay(Math.max(0, due - performance.now()))
    if (!running) break
    const sent = request().finally(() => inFlight.delete(sent))
    inFlight.add(sent)
    due += intervalMs
  }
}

/** A new client address for each login (X-Forwarded-For), as from different browsers. */
let logins = 0
const loginAddress = (index: number) =>
  `10.200.${Math.floor(index / 250) % 250}.${(index % 250) + 1}`

const senders = [
  ...me.bearers.map((bearer) =>
    every(me.intervalMs, () => call(samples.me, me.url, { headers: { authorization: bearer } }))
  ),
  every(login.intervalMs, () => {
    const index = logins++
    const identity = login.identities[index % login.identities.length]
    return call(samples.login, login.url, {
      method: 'POST',
      headers: { ...login.headers, 'x-forwarded-for': loginAddress(index) },
      body: JSON.stringify(identity),
    })
  }),
]

parentPort!.postMessage({ threadId, raisedPriority })
parentPort!.on('message', async (message: { stop: number } | 'resetLoop') => {
  if (message === 'resetLoop') {
    parentPort!.postMessage({ loopMaxMs: loop.max / 1e6 })
    loop.reset()
    return
  }
  running = false
  await Promise.all(senders)
  await Promise.race([Promise.all(inFlight), delay(message.stop)])
  parentPort!.postMessage({ ...samples, unanswered: inFlight.size } satisfies BReport)
})
