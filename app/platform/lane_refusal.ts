/*
| A work lane's refusal (work_lane.ts): why a task was refused and when it would be
| admitted. Apart from the lane so that the metrics that count refusals
| (operator_metrics.ts) and the lane that records them import it one way.
*/
import { ClientLeft } from '#platform/client_left'

export type LaneRefusal = 'queue_full' | 'key_busy' | 'key_budget' | 'waited_too_long'

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

/** The task's signal aborted while it waited (its caller has gone): it never ran. */
export class LaneAbandoned extends ClientLeft {
  constructor(readonly lane: string) {
    super(`lane ${lane} dropped a task: its caller has gone`, `its task in lane ${lane}`)
    this.name = 'LaneAbandoned'
  }
}
