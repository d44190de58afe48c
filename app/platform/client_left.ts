/*
| Work dropped before it started because its caller had gone: the request's signal
| (app/http/client_gone.ts) aborted while the work waited for its turn, a password hash
| in the hash queue (HashAbandoned) or a task in a work lane (LaneAbandoned). Nothing
| was computed or written, and the answer reaches nobody: the exception handler logs
| the departure, never an outage.
*/
export class ClientLeft extends Error {
  constructor(
    message: string,
    /** What was dropped, in the log's words ("its password check"). */
    readonly dropped: string
  ) {
    super(message)
    this.name = 'ClientLeft'
  }
}
