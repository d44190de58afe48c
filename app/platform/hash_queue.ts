/*
| The line in front of the password hashing threads: bounded, and fair between keys.
|
| At most `slots` hashes run at once (one per thread, so that a thread never holds a
| hash that could still be dropped or overtaken), and at most `slotsPerKey` of one key,
| so that a slot is free for another key's hash the moment it arrives (a flood of one
| identity then holds half the threads, not all of them); the others wait here:
| - per key (the caller's choice: the login identity tried, the user), in the fair line
|   (fair_line.ts): a freed slot goes to the key served least recently. A burst of one
|   key waits behind itself; another key's hash waits for at most one hash of each key
|   whose turn comes before it.
| - at most `maxQueued` wait in all, at most `maxPerKey` of one key;
| - a hash is admitted only when its expected wait, from its place in the line and the
|   measured time of a hash, is within `maxWaitMs`. Refusals are decided at once on
|   arrival (HashQueueFull, with the expected wait as Retry-After), not found out after
|   waiting; a hash still waiting `maxWaitMs` after admission (the estimate was wrong) is
|   refused then.
| - a hash whose signal aborts (its client has gone) while it waits is dropped before
|   it reaches a thread (HashAbandoned). A hash already running is not interrupted.
*/
import { HashAbandoned, HashQueueFull, type HashRefusal } from '#platform/hash_refusal'
import { FairLine } from '#platform/fair_line'
import { unrefTimer, type SetTimer } from '#platform/unref_timer'
import type {
  HashQueueBounds,
  HashQueueOptions,
  HashQueueStats,
} from '#platform/hash_queue_options'

export type { HashQueueBounds, HashQueueOptions, HashQueueStats }

interface Waiting {
  start: () => void
  /** Removes the deadline and the abort listener. */
  release: () => void
}

/** Weight of the latest measured hash in the expected time of a hash (a moving average). */
const LEARNING_RATE = 0.2
/** Retry-After bounds, in seconds. */
const RETRY_AFTER_MIN = 1
const RETRY_AFTER_MAX = 60

export class HashQueue {
  readonly slots: number
  readonly slotsPerKey: number
  readonly #bounds: () => HashQueueBounds
  readonly #setTimer: SetTimer
  #expectedHashMs: number
  #running = 0
  /** Hashes running per key (keys with none are absent). */
  readonly #runningByKey = new Map<string, number>()
  readonly #line = new FairLine<Waiting>()
  readonly #counts = {
    admitted: 0,
    started: 0,
    abandoned: 0,
    refused: { queue_full: 0, key_full: 0, wait_too_long: 0, waited_too_long: 0 },
  }

  constructor(options: HashQueueOptions) {
    this.slots = Math.max(1, options.slots)
    this.slotsPerKey = Math.min(this.slots, Math.max(1, options.slotsPerKey ?? this.slots))
    this.#bounds = options.bounds
    this.#expectedHashMs = options.expectedHashMs
    this.#setTimer = options.setTimer ?? unrefTimer
  }

  get expectedHashMs() {
    return this.#expectedHashMs
  }

  get stats(): HashQueueStats {
    return {
      running: this.#running,
      queued: this.#line.length,
      ...this.#counts,
      refused: { ...this.#counts.refused },
    }
  }

  /** One hash took `ms` on its thread: the expected time of the next ones moves toward it. */
  observe(ms: number) {
    if (!Number.isFinite(ms) || ms <= 0) return
    this.#expectedHashMs += (ms - this.#expectedHashMs) * LEARNING_RATE
  }

  /**
   * Runs `hash` when a slot is free and it is `key`'s turn. Rejects at once with
   * HashQueueFull when it cannot be admitted, later with HashQueueFull when it waited
   * past the bound, and with HashAbandoned when `signal` aborts before it starts.
   */
  run<T>(key: string, hash: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) {
      this.#counts.abandoned++
      return Promise.reject(new HashAbandoned())
    }
    if (this.#canStartAtOnce(key)) {
      this.#counts.admitted++
      this.#line.started(key)
      return this.#start(key, hash)
    }
    const refusal = this.#refusalFor(key)
    if (refusal) {
      this.#counts.refused[refusal]++
      return Promise.reject(new HashQueueFull(refusal, this.#retryAfterSeconds(key)))
    }
    this.#counts.admitted++
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = {
        start: () => this.#start(key, hash).then(resolve, reject),
        release: () => {},
      }
      const cancelDeadline = this.#setTimer(() => {
        if (!this.#remove(key, waiting)) return
        this.#counts.refused.waited_too_long++
        reject(new HashQueueFull('waited_too_long', this.#retryAfterSeconds(key)))
      }, this.#bounds().maxWaitMs)
      const onAbort = () => {
        if (!this.#remove(key, waiting)) return
        this.#counts.abandoned++
        reject(new HashAbandoned())
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      waiting.release = () => {
        cancelDeadline()
        signal?.removeEventListener('abort', onAbort)
      }
      this.#line.add(key, waiting)
    })
  }

  #refusalFor(key: string): HashRefusal | undefined {
    const { maxQueued, maxPerKey, maxWaitMs } = this.#bounds()
    if (this.#line.length >= maxQueued) return 'queue_full'
    if (this.#line.waitingOf(key) >= maxPerKey) return 'key_full'
    if (this.#expectedWaitMs(key) > maxWaitMs) return 'wait_too_long'
    return undefined
  }

  /**
   * A slot is free and `key` is under its share. No waiting hash can take that slot:
   * hashes wait with a slot free only while their key is at its share (#next).
   */
  #canStartAtOnce(key: string) {
    return this.#running < this.slots && (this.#runningByKey.get(key) ?? 0) < this.slotsPerKey
  }

  /**
   * How long a new hash of `key` is expected to wait: the hashes that start before it in
   * the fair line, spread over the slots, plus the time for a slot to free (a slot
   * frees every hash time / slots while all are busy); and at least the time for the
   * key's own hashes ahead of it to pass through its share of the slots.
   */
  #expectedWaitMs(key: string) {
    if (this.#canStartAtOnce(key)) return 0
    const inTurn = ((this.#line.startBefore(key) + 1) * this.#expectedHashMs) / this.slots
    if ((this.#runningByKey.get(key) ?? 0) < this.slotsPerKey) return inTurn
    const ownAhead = this.#line.waitingOf(key)
    return Math.max(inTurn, ((ownAhead + 1) * this.#expectedHashMs) / this.slotsPerKey)
  }

  #retryAfterSeconds(key: string) {
    const seconds = Math.ceil(this.#expectedWaitMs(key) / 1000)
    return Math.min(RETRY_AFTER_MAX, Math.max(RETRY_AFTER_MIN, seconds))
  }

  /** Runs `hash` in a slot; a hash that waited has its start recorded by the line already. */
  #start<T>(key: string, hash: () => Promise<T>): Promise<T> {
    this.#running++
    this.#runningByKey.set(key, (this.#runningByKey.get(key) ?? 0) + 1)
    this.#counts.started++
    let result: Promise<T>
    try {
      result = hash()
    } catch (error) {
      result = Promise.reject(error)
    }
    return result.finally(() => {
      this.#running--
      const left = this.#runningByKey.get(key)! - 1
      if (left === 0) {
        this.#runningByKey.delete(key)
        this.#line.forget(key)
      } else this.#runningByKey.set(key, left)
      this.#next()
    })
  }

  /** Starts waiting hashes while slots are free, of keys under their share (a key at its share keeps its turn). */
  #next() {
    const underShare = (key: string) => (this.#runningByKey.get(key) ?? 0) < this.slotsPerKey
    while (this.#running < this.slots) {
      const waiting = this.#line.takeNext(underShare)
      if (!waiting) return
      waiting.release()
      waiting.start()
    }
  }

  /** Takes a waiting hash out of the line; false when it is not waiting any more. */
  #remove(key: string, waiting: Waiting) {
    if (!this.#line.remove(key, waiting)) return false
    if (!this.#runningByKey.has(key)) this.#line.forget(key)
    waiting.release()
    return true
  }
}
