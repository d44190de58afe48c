/*
| Where a password hash stands in line (app/platform/hash_queue.ts): the key it is
| queued under and the signal that drops it when its caller has gone. The hash
| service's verify and make take only the values, so an operation states the place
| around its call (password_hashing.ts) and the hasher reads it here.
*/
import { AsyncLocalStorage } from 'node:async_hooks'

export interface HashingPlace {
  /** The line the hash waits in: the login identity tried, the user (hash_queue.ts). */
  key: string
  /** Aborts when the caller has gone: a hash still waiting is then dropped. */
  signal?: AbortSignal
}

/** The line of hashes made without a stated place (accounts made by operator commands and seeders). */
export const UNPLACED: HashingPlace = Object.freeze({ key: 'unplaced' })

const places = new AsyncLocalStorage<HashingPlace>()

/** Runs `work` with its hashes queued at `place`. */
export function hashingAt<T>(place: HashingPlace, work: () => Promise<T>): Promise<T> {
  return places.run(place, work)
}

/** The place of the hash being asked for now. */
export function currentHashingPlace(): HashingPlace {
  return places.getStore() ?? UNPLACED
}
