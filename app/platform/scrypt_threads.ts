/*
| Password hashing (scrypt) on worker threads of its own, as many as the cores (at most
| four, libuv's default pool).
|
| Node's asynchronous scrypt runs on libuv's thread pool: four threads per process,
| shared with file and DNS work. On two cores, four memory-hard hashes at once
| time-sliced with the request thread, and a burst of logins then stalled file and DNS
| work behind them (a 5 s knex acquire timeout when the pool was cut to two). Here each
| hash runs synchronously on a thread that only hashes, so hashing takes the cores and
| nothing else waits for it.
|
| A hash is handed to an idle thread (the hash queue, hash_queue.ts, sends at most one
| per thread), else to the one with the fewest waiting. Threads start on first need,
| never keep the process alive while idle, and a thread that dies fails only the
| hashes it held; the next hash starts another.
*/
import { Worker } from 'node:worker_threads'
import { availableParallelism } from 'node:os'
import { siblingModule } from '#platform/sibling_module'

export interface ScryptJob {
  password: string
  salt: Uint8Array
  keyLength: number
  cost: number
  blockSize: number
  parallelization: number
  maxMemory: number
}

export type ScryptReply =
  { id: number; key: Uint8Array; ms: number } | { id: number; error: string }

/** A derived key and the milliseconds its thread took for it. */
export interface Derived {
  key: Buffer
  ms: number
}

/** A hashing thread died (crash, out of memory) while it held the hash. */
export class HashingThreadFailed extends Error {
  constructor(cause: Error) {
    super(`a password hashing thread failed: ${cause.message}`, { cause })
    this.name = 'HashingThreadFailed'
  }
}

interface Pending {
  resolve: (derived: Derived) => void
  reject: (error: Error) => void
}

interface HashingThread {
  worker: Worker
  pending: Map<number, Pending>
}

/**
 * What a thread is sent for `job`. A small Buffer (a salt read from a stored hash) is a
 * view of Node's shared 64 KiB allocation pool, and postMessage copies a view's whole
 * ArrayBuffer: sent as it is, every hash left 64 KiB in the thread until its isolate
 * collected, about 65 KB of native memory a login (bench/results/soak_2026-11-29.md).
 * The salt travels as bytes of its own.
 */
export function threadMessage(id: number, job: ScryptJob): { id: number; job: ScryptJob } {
  return { id, job: { ...job, salt: new Uint8Array(job.salt) } }
}

export class ScryptThreads {
  /** The most threads at once. */
  readonly size: number
  readonly #threads: HashingThread[] = []
  #nextId = 0

  constructor(size = Math.min(availableParallelism(), 4)) {
    this.size = Math.max(1, size)
  }

  /**
   * The scrypt key of `job`, and the thread's time for it. Rejects with the
   * derivation's error when scrypt refuses the parameters, and with
   * HashingThreadFailed when the thread died.
   */
  derive(job: ScryptJob): Promise<Derived> {
    const thread = this.#pick()
    const id = this.#nextId++
    return new Promise<Derived>((resolve, reject) => {
      if (thread.pending.size === 0) thread.worker.ref()
      thread.pending.set(id, { resolve, reject })
      thread.worker.postMessage(threadMessage(id, job))
    })
  }

  /** Ends every thread (tests, shutdown); hashes they held are rejected. */
  async close() {
    const threads = this.#threads.splice(0)
    await Promise.all(threads.map((thread) => thread.worker.terminate()))
  }

  /** An idle thread, a new one while under the size, else the one with the fewest waiting. */
  #pick(): HashingThread {
    let least: HashingThread | undefined
    for (const thread of this.#threads) {
      if (thread.pending.size === 0) return thread
      if (!least || thread.pending.size < least.pending.size) least = thread
    }
    if (this.#threads.length < this.size || !least) return this.#start()
    return least
  }

  #start(): HashingThread {
    const { url, execArgv } = siblingModule(import.meta.url, 'scrypt_thread')
    const worker = new Worker(url, { execArgv })
    worker.unref()
    const thread: HashingThread = { worker, pending: new Map() }
    this.#threads.push(thread)

    worker.on('message', (reply: ScryptReply) => {
      const waiting = thread.pending.get(reply.id)
      if (!waiting) return
      thread.pending.delete(reply.id)
      if (thread.pending.size === 0) worker.unref()
      if ('error' in reply) waiting.reject(new Error(reply.error))
      else {
        const { buffer, byteOffset, byteLength } = reply.key
        waiting.resolve({ key: Buffer.from(buffer, byteOffset, byteLength), ms: reply.ms })
      }
    })
    const fail = (error: Error) => {
      const index = this.#threads.indexOf(thread)
      if (index !== -1) this.#threads.splice(index, 1)
      for (const waiting of thread.pending.values()) waiting.reject(new HashingThreadFailed(error))
      thread.pending.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`a password hashing thread exited (code ${code})`)))
    return thread
  }
}
