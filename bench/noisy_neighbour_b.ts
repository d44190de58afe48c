/*
| Merchant B's `GET /portal/me` users of bench/noisy_neighbour.ts, on a thread of their
| own: each user calls every `intervalMs` (open loop, first call at a random phase)
| until told to stop, and the samples go back to the main thread with wall-clock
| times. On the main thread, B's timings included the load generator's own pauses
| (reading A's 100-item pages, building its uploads): B's users are other people's
| browsers, not the process that loads the server for merchant A.
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

export interface BUsersInput {
  url: string
  bearers: string[]
  intervalMs: number
}

export interface BSample {
  /** Wall-clock milliseconds (performance.timeOrigin + now) when it was sent. */
  at: number
  ms: number
  status: number
}

const { url, bearers, intervalMs } = workerData as BUsersInput

/** `true` when this thread now runs at nice -10 (Linux, and root or CAP_SYS_NICE). */
function raiseOwnPriority() {
  try {
    // Linux keeps a nice level per thread; /proc/thread-self names this one's id.
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop())
    setPriority(threadId, -10)
    return true
  } catch {
    return false
  }
}
const raisedPriority = raiseOwnPriority()
const samples: BSample[] = []
const loop = monitorEventLoopDelay({ resolution: 10 })
loop.enable()
let running = true
const inFlight = new Set<Promise<void>>()

async function call(bearer: string) {
  const sent = performance.now()
  let status = 0
  try {
    const response = await fetch(url, { headers: { authorization: bearer } })
    await response.arrayBuffer()
    status = response.status
  } catch {
    status = 0
  }
  samples.push({ at: performance.timeOrigin + sent, ms: performance.now() - sent, status })
}

const users = bearers.map(async (bearer) => {
  let due = performance.now() + Math.random() * intervalMs
  while (running) {
    await delay(Math.max(0, due - performance.now()))
    if (!running) break
    const request = call(bearer).finally(() => inFlight.delete(request))
    inFlight.add(request)
    due += intervalMs
  }
})

parentPort!.on('message', async (message: { stop: number } | 'resetLoop') => {
  if (message === 'resetLoop') {
    parentPort!.postMessage({ loopMaxMs: loop.max / 1e6, raisedPriority })
    loop.reset()
    return
  }
  running = false
  await Promise.all(users)
  await Promise.race([Promise.all(inFlight), delay(message.stop)])
  parentPort!.postMessage({ samples, unanswered: inFlight.size })
})
