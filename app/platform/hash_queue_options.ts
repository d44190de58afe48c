/*
| The hash queue's settings and counters (hash_queue.ts).
*/
import type { HashRefusal } from '#platform/hash_refusal'
import type { SetTimer } from '#platform/unref_timer'

export interface HashQueueBounds {
  /** Hashes waiting in all. */
  maxQueued: number
  /** Hashes of one key waiting. */
  maxPerKey: number
  /** The longest a hash may be expected to wait, and may wait. */
  maxWaitMs: number
}

export interface HashQueueOptions {
  /** Hashes at once (the threads). */
  slots: number
  /** Hashes of one key at once (all the slots unless set). */
  slotsPerKey?: number
  /** Read on every arrival, so that a changed setting applies at once. */
  bounds: () => HashQueueBounds
  /** The milliseconds of one hash until one has been measured (observe). */
  expectedHashMs: number
  /** Schedules `callback` in `ms`; returns its cancellation (tests pass a clock they control). */
  setTimer?: SetTimer
}

/** What the queue did since it was made, and what it holds now. */
export interface HashQueueStats {
  running: number
  queued: number
  /** Hashes that started at once or were admitted to wait. */
  admitted: number
  /** Hashes handed to a thread. */
  started: number
  abandoned: number
  refused: Record<HashRefusal, number>
}
