/*
| A password hashing thread (scrypt_threads.ts): derives each scrypt key it is sent,
| synchronously, in the order sent, and sends it back with the milliseconds it took
| (the hash queue's expected time of a hash).
|
| The thread runs a little below normal priority (Linux keeps a nice level per thread):
| a busy core then goes to the request thread and the database first, so a burst of
| hashes does not hold back the requests around them. The cores stay as busy, so the
| hashes lose no throughput; image children run lower still (child_workers.ts).
*/
import { parentPort } from 'node:worker_threads'
import { setPriority } from 'node:os'
import { scryptSync } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { ScryptJob, ScryptReply } from '#platform/scrypt_threads'

/** Nice 5: a contended core gives the request thread about three times this thread's share. */
const HASHING_NICE = 5
try {
  setPriority(HASHING_NICE)
} catch {
  // Not permitted or not supported: the thread runs at the process's priority.
}

const port = parentPort!
port.on('message', ({ id, job }: { id: number; job: ScryptJob }) => {
  let reply: ScryptReply
  try {
    const startedAt = performance.now()
    const key = scryptSync(job.password, job.salt, job.keyLength, {
      cost: job.cost,
      blockSize: job.blockSize,
      parallelization: job.parallelization,
      maxmem: job.maxMemory,
    })
    reply = { id, key, ms: performance.now() - startedAt }
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply)
})
