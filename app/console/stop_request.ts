/*
| SIGTERM and SIGINT for the long operator commands (collections:import, history:purge,
| history:reproject, auth:prune). While one runs it holds the process's stop request:
| the first signal aborts the AbortSignal the command gave its operation, which stops
| at its next batch boundary and reports what it committed; the command then exits
| with stopExitCode(). A second signal ends the process at once: the batch in flight
| rolls back with its connection and no audit record is written.
|
| The operations never see the process: they take an AbortSignal. Outside these
| commands the entry point (bin/console.ts) keeps its own handling.
*/
import { constants } from 'node:os'

export type StopSignalName = 'SIGTERM' | 'SIGINT'

const STOP_SIGNALS: StopSignalName[] = ['SIGTERM', 'SIGINT']

/** The shell's convention, 128 + the signal's number: 143 for SIGTERM, 130 for SIGINT. */
export function stopExitCode(name: StopSignalName): number {
  return 128 + constants.signals[name]
}

let held = false

/** Whether a long command holds the stop request (the entry point then stays out). */
export function stopRequestHeld() {
  return held
}

/**
 * Claimed by a long command for the time of its run. `notice` tells the operator the
 * signal was received (standard error). `release` gives the signals back.
 */
export function claimStopRequest(notice: (message: string) => void) {
  const controller = new AbortController()
  const onSignal = (name: StopSignalName) => {
    if (controller.signal.aborted) {
      notice(`${name} again: stopping now, the batch in progress is rolled back`)
      process.exit(stopExitCode(name))
    }
    notice(`${name} received: stopping after the batch in progress (${name} again stops at once)`)
    controller.abort(name)
  }
  for (const name of STOP_SIGNALS) process.on(name, onSignal)
  held = true
  return {
    signal: controller.signal,
    /** The exit code of the signal that stopped the run (when one did). */
    exitCode: () => stopExitCode(controller.signal.reason as StopSignalName),
    release: () => {
      for (const name of STOP_SIGNALS) process.off(name, onSignal)
      held = false
    },
  }
}
