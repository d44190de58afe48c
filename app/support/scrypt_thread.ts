/*
| A password hashing thread (scrypt_threads.ts): derives each scrypt key it is sent,
| synchronously, in the order sent, and sends it back.
*/
import { parentPort } from 'node:worker_threads'
import { scryptSync } from 'node:crypto'
import type { ScryptJob, ScryptReply } from '#support/scrypt_threads'

const port = parentPort!
port.on('message', ({ id, job }: { id: number; job: ScryptJob }) => {
  let reply: ScryptReply
  try {
    const key = scryptSync(job.password, job.salt, job.keyLength, {
      cost: job.cost,
      blockSize: job.blockSize,
      parallelization: job.parallelization,
      maxmem: job.maxMemory,
    })
    reply = { id, key }
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply)
})
