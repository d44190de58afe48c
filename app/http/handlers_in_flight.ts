/*
| The requests whose handlers are still running, so that a shutdown waits for them
| (bin/server.ts, docs/operations.md › Rolling restarts). Node's `server.close()` waits
| for open connections, not for handlers: the handler of a client that has gone keeps
| running with no socket, and the shutdown used to close the database pool under it (a
| login's token statement then failed as "dependency unavailable"). Each handler's own
| deadlines (the hash queue's wait, the image deadline, the pool's acquire timeout)
| bound the wait.
*/
import type { Server } from 'node:http'

let running = 0
let waiting: (() => void)[] = []

function settledOne() {
  running--
  if (running > 0) return
  const resolved = waiting
  waiting = []
  for (const resolve of resolved) resolve()
}

/** Counts `result` (what the framework's handler returned) as running until it settles. */
export function trackHandler(result: unknown) {
  if (!(result instanceof Promise)) return
  running++
  result.then(settledOne, settledOne)
}

/** How many handlers are running now. */
export function handlersRunning() {
  return running
}

/** Resolves once no handler is running. */
export function handlersSettled(): Promise<void> {
  if (running === 0) return Promise.resolve()
  return new Promise((resolve) => waiting.push(resolve))
}

/**
 * Stops accepting connections, then resolves once every connection has closed and every
 * handler has ended, those whose clients have gone included.
 */
export async function closeAndSettle(server: Server) {
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await handlersSettled()
}
