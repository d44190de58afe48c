/*
| A password hashing thread (scrypt_threads.ts): derives each scrypt key it is sent,
| synchronously, in the order sent, and sends it back with the milliseconds it took
| (the hash queue's expected time of a hash).
*/
import { parentPort } from 'node:worker_threads'
import { scryptSync } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { ScryptJob, ScryptReply } from '#platform/scrypt_threads'

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
