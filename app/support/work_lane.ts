/*
| A bounded lane for heavy work.
|
| At most `concurrency` tasks run at once; the others wait in arrival order (FIFO).
| The waiting is bounded too, so that a burst costs a quick refusal instead of minutes
| of queueing and memory:
| - at most `maxQueued` tasks wait in all;
| - at most `maxPerKey` tasks (running or waiting) belong to one key (a merchant), so
|   one key cannot fill the queue in front of everybody else.
| A task over either bound is refused at once with LaneFullError, which carries an
| estimate of when a place should be free (the Retry-After of a 503).
|
| Running and waiting tasks, waits and refusals are Prometheus series labelled with the
| lane's name (docs/operations.md).
*/
import { recordLaneRefusal, recordLaneTasks, recordLaneWait } from '#support/operator_metrics'

export type LaneRefusal = 'queue_full' | 'key_busy'

export class LaneFullError extends Error {
  constructor(
    readonly lane: string,
    readonly reason: LaneRefusal,
    readonly retryAfterSeconds: number
  ) {
    super(`lane ${lane} refused a task: ${reason}`)
    this.name = 'LaneFullError'
  }
}

export interface LaneOptions {
  /** Names the lane in metrics. */
  name: string
  concurrency: number
  maxQueued: number
  maxPerKey: number
}

/** Retry-After bounds, in seconds. */
const RETRY_AFTER_MIN = 1
const RETRY_AFTER_MAX = 60

export class WorkLane {
  readonly name: string
  readonly concurrency: number
  readonly maxQueued: number
  readonly maxPerKey: number

  #running = 0
  readonly #waiting: Array<() => void> = []
  readonly #perKey = new Map<string, number>()
  /** Moving average of task durations, for the Retry-After estimate. */
  #meanSeconds = 1

  constructor(options: LaneOptions) {
    this.name = options.name
    this.concurrency = options.concurrency
    this.maxQueued = options.maxQueued
    this.maxPerKey = options.maxPerKey
    this.#publish()
  }

  get running() {
    return this.#running
  }

  get queued() {
    return this.#waiting.length
  }

  /**
   * Throws the LaneFullError `run` would throw for `key` now, so that a caller can
   * refuse before doing the work that precedes the task (reading an upload).
   */
  refuseWhenFull(key: string) {
    const held = this.#perKey.get(key) ?? 0
    const mustWait = this.#running >= this.concurrency
    const refusal: LaneRefusal | undefined =
      held >= this.maxPerKey
        ? 'key_busy'
        : mustWait && this.#waiting.length >= this.maxQueued
          ? 'queue_full'
          : undefined
    if (refusal) {
      recordLaneRefusal(this.name, refusal)
      throw new LaneFullError(this.name, refusal, this.#retryAfterSeconds())
    }
  }

  /** Runs `task` when a place is free, or throws LaneFullError at once. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    this.refuseWhenFull(key)
    const held = this.#perKey.get(key) ?? 0
    const mustWait = this.#running >= this.concurrency
    this.#perKey.set(key, held + 1)
    try {
      if (mustWait) {
        const queuedAt = performance.now()
        // #release hands the place over directly: #running already counts this task.
        await new Promise<void>((resolve) => {
          this.#waiting.push(resolve)
          this.#publish()
        })
        recordLaneWait(this.name, (performance.now() - queuedAt) / 1000)
      } else {
        this.#running++
        recordLaneWait(this.name, 0)
        this.#publish()
      }
      const startedAt = performance.now()
      try {
        return await task()
      } finally {
        this.#meanSeconds = 0.8 * this.#meanSeconds + 0.2 * ((performance.now() - startedAt) / 1000)
        this.#release()
      }
    } finally {
      const left = (this.#perKey.get(key) ?? 1) - 1
      if (left > 0) this.#perKey.set(key, left)
      else this.#perKey.delete(key)
    }
  }

  #release() {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#running--
    this.#publish()
  }

  /** Time for the tasks ahead to drain through the lane's places, rounded up. */
  #retryAfterSeconds() {
    const ahead = this.#running + this.#waiting.length
    const seconds = Math.ceil((this.#meanSeconds * ahead) / this.concurrency)
    return Math.min(RETRY_AFTER_MAX, Math.max(RETRY_AFTER_MIN, seconds))
  }

  #publish() {
    recordLaneTasks(this.name, this.#running, this.#waiting.length)
  }
}
