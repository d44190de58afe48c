/*
| Why the password hash queue (hash_queue.ts) did not hash: refused on arrival or
| after waiting (503 with Retry-After), or dropped because its caller had gone.
*/
import { ClientLeft } from '#platform/client_left'

export type HashRefusal = 'queue_full' | 'key_full' | 'wait_too_long' | 'waited_too_long'

/** The hash was not admitted, or waited past the bound: come back in `retryAfterSeconds`. */
export class HashQueueFull extends Error {
  constructor(
    readonly reason: HashRefusal,
    readonly retryAfterSeconds: number
  ) {
    super(`password hashing refused a hash: ${reason}`)
    this.name = 'HashQueueFull'
  }
}

/** The hash's signal aborted while it waited: it was never computed. */
export class HashAbandoned extends ClientLeft {
  constructor() {
    super('a password hash was dropped: its caller has gone', 'its password check')
    this.name = 'HashAbandoned'
  }
}
