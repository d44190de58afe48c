/*
| A bounded lane for heavy work.
|
| At most `concurrency` tasks run at once; the others wait, and a freed place goes to
| the key served least recently (fair_line.ts), not in arrival order.
| The waiting is bounded too, so that a burst costs a quick refusal instead of minutes
| of queueing and memory:
| - at most `maxQueued` tasks wait in all;
| - at most `maxPerKey` tasks (running or waiting) belong to one key (a merchant), so
|   one key cannot fill the queue in front of everybody else.
| - optionally, a key's tasks take at most `secondsPerKeyPerMinute` of the lane's time
|   a minute: a budget of that many seconds, refilled evenly up to it, and a key in
|   debt is refused until it is repaid (key_budgets.ts). Places bound how much work waits; this bounds
|   how much of the lane's time one key's work may take (one merchant's stream of
|   costly images otherwise holds it all the time).
| Every task comes with its amount of work (the caller's unit: an image's pixels), and
| the lane learns how many seconds a unit takes. A task's expected time counts against
| its key's budget from its admission, so that a key's next task is judged with the
| ones it already has in the lane; its real time replaces the estimate when it ends.
| A task over any bound is refused at once with LaneFullError, which carries when it
| would be admitted (the Retry-After of a 503): the expected time of the tasks ahead
| over the places, or the time until the key's debt is repaid. A task still waiting
| `maxWaitMs` after its admission (the estimate was wrong: a slow relay, a slow host)
| leaves the line then, with the same error (`waited_too_long`).
|
| Running and waiting tasks, waits and refusals are Prometheus series labelled with the
| lane's name (docs/operations.md).
*/
import { recordLaneRefusal, recordLaneTasks, recordLaneWait } from '#support/operator_metrics'
import { LaneAbandoned, LaneFullError, type LaneRefusal } from '#platform/lane_refusal'
import { FairLine } from '#platform/fair_line'
import { KeyBudgets } from '#platform/key_budgets'
import { unrefTimer, type SetTimer } from '#platform/unref_timer'

export interface LaneOptions {
  /** Names the lane in metrics. */
  name: string
  concurrency: number
  maxQueued: number
  maxPerKey: number
  /** The lane time a key's tasks may take per minute, in seconds; unbounded when absent. */
  secondsPerKeyPerMinute?: number
  /** The seconds one unit of work is expected to take until the lane has measured it; 1 when absent. */
  secondsPerWork?: number
  /** Milliseconds, for task times and the budget (tests pass a clock they control). */
  now?: () => number
  /** The longest a task waits for a place; unbounded when absent. */
  maxWaitMs?: number
  /** Calls back after `ms`, returning a cancel (tests pass timers they fire). */
  setTimer?: SetTimer
}

/** A task admitted to the lane, running (since `startedAt`) or waiting. */
interface Admitted {
  key: string
  expectedSeconds: number
  startedAt?: number
}

/** Retry-After bounds, in seconds: at least a second; at most 5 minutes, whatever a wrong estimate says. */
const RETRY_AFTER_MIN = 1
const RETRY_AFTER_MAX = 300
/** Weight of the latest task in the measured seconds per unit of work (a moving average). */
const LEARNING_RATE = 0.2

export class WorkLane {
  readonly name: string
  readonly concurrency: number
  readonly maxQueued: number
  readonly maxPerKey: number
  readonly secondsPerKeyPerMinute: number | undefined

  #running = 0
  /** The waiting tasks' starts: each hands its place over to the task it starts. */
  readonly #line = new FairLine<() => void>()
  readonly #perKey = new Map<string, number>()
  readonly #admitted = new Set<Admitted>()
  /** Moving average of the seconds a unit of work took, for the estimates. */
  #secondsPerWork: number
  readonly #now: () => number
  readonly #budgets: KeyBudgets
  readonly #maxWaitMs: number | undefined
  readonly #setTimer: SetTimer

  constructor(options: LaneOptions) {
    this.name = options.name
    this.concurrency = options.concurrency
    this.maxQueued = options.maxQueued
    this.maxPerKey = options.maxPerKey
    this.secondsPerKeyPerMinute = options.secondsPerKeyPerMinute
    this.#secondsPerWork = options.secondsPerWork ?? 1
    this.#now = options.now ?? Date.now
    this.#budgets = new KeyBudgets(options.secondsPerKeyPerMinute, this.#now)
    this.#maxWaitMs = options.maxWaitMs
    this.#setTimer = options.setTimer ?? unrefTimer
    this.#publish()
  }

  get running() {
    return this.#running
  }

  get queued() {
    return this.#line.length
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
        : mustWait && this.#line.length >= this.maxQueued
          ? 'queue_full'
          : undefined
    if (refusal) {
      recordLaneRefusal(this.name, refusal)
      throw new LaneFullError(this.name, refusal, this.retryAfterSeconds())
    }
    // The key's tasks in the lane are charged already, at their expected time.
    const available = this.#budgets.balance(key) - this.#expectedSecondsOf(key) * 60_000
    if (available < 0) {
      recordLaneRefusal(this.name, 'key_budget')
      const repaid = this.#budgets.secondsToRepay(available)
      throw new LaneFullError(this.name, 'key_budget', clampRetryAfter(repaid))
    }
  }

  /** The expected seconds of the key's tasks in the lane. */
  #expectedSecondsOf(key: string) {
    let seconds = 0
    for (const task of this.#admitted) if (task.key === key) seconds += task.expectedSeconds
    return seconds
  }

  /** Every key's budget full again (tests start from it; merchant ids restart there). */
  refillBudgets() {
    this.#budgets.refill()
  }

  /**
   * Runs `task`, `work` units of it (more than 0; 1 when absent), when a place is free,
   * or throws LaneFullError at once. When `signal` aborts (the caller has gone) before
   * the task starts, it is dropped with LaneAbandoned; a task already running goes on.
   */
  async run<T>(key: string, task: () => Promise<T>, work = 1, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw new LaneAbandoned(this.name)
    this.refuseWhenFull(key)
    const held = this.#perKey.get(key) ?? 0
    const mustWait = this.#running >= this.concurrency
    this.#perKey.set(key, held + 1)
    const admitted: Admitted = { key, expectedSeconds: work * this.#secondsPerWork }
    this.#admitted.add(admitted)
    try {
      if (mustWait) {
        const queuedAt = performance.now()
        // #release hands the place over directly: #running already counts this task.
        let leave = () => {}
        let cancelWait = () => {}
        const placed = new Promise<void>((start, drop) => {
          this.#line.add(key, start)
          const leaveWith = (error: () => Error) => {
            if (!this.#line.remove(key, start)) return
            this.#publish()
            drop(error())
          }
          leave = () => leaveWith(() => new LaneAbandoned(this.name))
          if (this.#maxWaitMs === undefined) return
          cancelWait = this.#setTimer(
            () =>
              leaveWith(() => {
                recordLaneRefusal(this.name, 'waited_too_long')
                return new LaneFullError(this.name, 'waited_too_long', this.retryAfterSeconds())
              }),
            this.#maxWaitMs
          )
        })
        signal?.addEventListener('abort', leave, { once: true })
        this.#publish()
        await placed.finally(() => {
          signal?.removeEventListener('abort', leave)
          cancelWait()
        })
        recordLaneWait(this.name, (performance.now() - queuedAt) / 1000)
      } else {
        this.#running++
        this.#line.started(key)
        recordLaneWait(this.name, 0)
        this.#publish()
      }
      const startedAt = this.#now()
      admitted.startedAt = startedAt
      try {
        return await task()
      } finally {
        // A clock set back (NTP) counts as no time.
        const milliseconds = Math.max(0, this.#now() - startedAt)
        const secondsPerWork = milliseconds / 1000 / work
        this.#secondsPerWork += LEARNING_RATE * (secondsPerWork - this.#secondsPerWork)
        // The real time takes the estimate's place (removed below) in the key's charges.
        this.#budgets.charge(key, milliseconds)
        this.#release()
      }
    } finally {
      this.#admitted.delete(admitted)
      const left = (this.#perKey.get(key) ?? 1) - 1
      if (left > 0) this.#perKey.set(key, left)
      else {
        this.#perKey.delete(key)
        this.#line.forget(key)
      }
    }
  }

  #release() {
    const start = this.#line.takeNext()
    if (start) start()
    else this.#running--
    this.#publish()
  }

  /**
   * The expected wait for a place, in whole seconds: the expected time left of the
   * tasks running and waiting, drained through the lane's places.
   */
  retryAfterSeconds() {
    const now = this.#now()
    let seconds = 0
    for (const task of this.#admitted) {
      const ran = task.startedAt === undefined ? 0 : (now - task.startedAt) / 1000
      seconds += Math.max(0, task.expectedSeconds - ran)
    }
    return clampRetryAfter(Math.ceil(seconds / this.concurrency))
  }

  #publish() {
    recordLaneTasks(this.name, this.#running, this.#line.length)
  }
}

const clampRetryAfter = (seconds: number) =>
  Math.min(RETRY_AFTER_MAX, Math.max(RETRY_AFTER_MIN, seconds))
