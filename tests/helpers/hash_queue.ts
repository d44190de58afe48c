/*
| Holding the password hashing slots (#config/hash's queue) so that hashes stay
| queued until a test lets them go, and requests whose client leaves while their
| hash waits: the tests of the hash queue observe its counters, never timing.
*/
import { passwordHashQueue } from '#config/hash'
import { eventually, REQUEST_MS } from '#tests/helpers/server_process'
import { connectToServer } from '#tests/helpers/test_server'

/**
 * Occupies every hashing slot until the returned function lets them go (a key of its
 * own per slot: one key holds at most its share of the slots).
 */
export function holdTheHashingSlots() {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const holders = Array.from({ length: passwordHashQueue.slots }, (_, slot) =>
    passwordHashQueue.run(`test:holder:${slot}`, () => released)
  )
  return async () => {
    release()
    await Promise.all(holders)
  }
}

export function untilQueued(count: number) {
  return eventually(
    async () => passwordHashQueue.stats.queued === count,
    `${count} password hashes waiting`,
    { within: REQUEST_MS, every: 20 }
  )
}

/** Sends a JSON request over a socket of its own, so that the test can close it mid-request. */
async function sendJson(
  path: string,
  headers: Record<string, string>,
  payload: object,
  method = 'POST'
) {
  const socket = await connectToServer()
  const body = JSON.stringify(payload)
  const head = {
    ...headers,
    'Host': `${process.env.HOST}:${process.env.PORT}`,
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
  }
  socket.write(
    `${method} ${path} HTTP/1.1\r\n` +
      Object.entries(head)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      `\r\n${body}`
  )
  return socket
}

/**
 * Sends a request whose password check will wait (the test holds the hashing slots),
 * closes its connection once the check is queued, and resolves when the queue has
 * dropped it. Returns the queue's counters from before the request.
 */
export async function leaveWhileTheCheckWaits(
  request: { path: string; headers: Record<string, string>; payload: object; method?: string },
  cleanup: (handler: () => void) => void
) {
  const before = passwordHashQueue.stats
  const socket = await sendJson(request.path, request.headers, request.payload, request.method)
  cleanup(() => void socket.destroy())
  await untilQueued(1)
  socket.destroy()
  await eventually(
    async () => passwordHashQueue.stats.abandoned === before.abandoned + 1,
    'the waiting check dropped',
    { within: REQUEST_MS, every: 20 }
  )
  return before
}
