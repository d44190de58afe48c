/*
| Merchant B of bench/noisy_neighbour.ts, in a process of its own: its `GET /portal/me`
| users, each calling at random times, `me.meanIntervalMs` apart on average (a Poisson
| process, open loop), never more than `me.perMinute` in any 60 s, and its logins, one
| every `login.intervalMs` (correct password, identities in turn, each from a new
| client address), until told to stop; the samples go back to the main process with
| wall-clock times.
| Why random times: B's users at a fixed period equal to A's readers' (both spend the
| same API limit evenly) kept the same offset from them for the whole run, so whether
| a B user's calls landed on A's pages every second, or never, was decided by the
| random start; the p99 then swung from 0.9x to 2.6x between identical runs.
| Arrivals at random times see the server in every state in proportion to its time
| there (Poisson arrivals see time averages). B's users are other people's browsers, not the
| process that loads the server for merchant A: on the load generator's thread, B's
| timings included its pauses (reading A's 100-item pages, building its uploads), and
| on a thread of that process they still shared its memory map, whose lock the
| generator's large buffers take (B's thread stalled up to 54 ms).
| The process also asks for a higher CPU priority (nice -10, where allowed) than the
| load generator and the server, as a latency probe does: otherwise its own wait for
| a core on the shared two-core host (the loaded phase pauses it 20-30 ms) is counted
| as the server's latency. It measures only; it does no work the server waits for.
*/
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setTimeout as delay } from 'node:timers/promises'
import { setThreadsPriority } from './load_tools.js'

export interface BInput {
  me: { url: string; bearers: string[]; meanIntervalMs: number; perMinute: number }
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

const { me, login } = JSON.parse(process.env.NOISY_NEIGHBOUR_B!) as BInput
/** Every thread of this process at nice -10 (Linux, and root or CAP_SYS_NICE). */
const raisedPriority = setThreadsPriority(-10)
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

/**
 * Sends `request()` at random times, `meanIntervalMs` apart on average (exponential
 * gaps), until stopped, whether or not earlier ones were answered; a send that would
 * be the `perMinute + 1`-th within 60 s waits until it is not.
 */
async function atRandom(meanIntervalMs: number, perMinute: number, request: () => Promise<void>) {
  const sentAt: number[] = []
  const gap = () => -Math.log(1 - Math.random()) * meanIntervalMs
  let due = performance.now() + gap()
  while (running) {
    // The window is 60 s; 50 ms more for the server's and this clock's rounding.
    if (sentAt.length >= perMinute) due = Math.max(due, sentAt[sentAt.length - perMinute] + 60_050)
    await delay(Math.max(0, due - performance.now()))
    if (!running) break
    sentAt.push(performance.now())
    if (sentAt.length > perMinute) sentAt.shift()
    const sent = request().finally(() => inFlight.delete(sent))
    inFlight.add(sent)
    due += gap()
  }
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
    atRandom(me.meanIntervalMs, me.perMinute, () =>
      call(samples.me, me.url, { headers: { authorization: bearer } })
    )
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

process.send!({ raisedPriority })
process.on('message', async (message: { stop: number } | 'resetLoop') => {
  if (message === 'resetLoop') {
    process.send!({ loopMaxMs: loop.max / 1e6 })
    loop.reset()
    return
  }
  running = false
  await Promise.all(senders)
  await Promise.race([Promise.all(inFlight), delay(message.stop)])
  process.send!({ ...samples, unanswered: inFlight.size } satisfies BReport, () => process.exit(0))
})
