/*
| `node ace history:reproject [--dry-run]` (decisions.md §5): re-runs the history
| projection over stored snapshots after the allowlists changed (PROJECTION_VERSION
| in app/services/collections/history/projection.ts). Batched, resumable, safe on several hosts at once;
| progress on standard error when it is a terminal. SIGTERM or SIGINT stops it after
| the batch in progress (docs/collections-operations.md).
*/
import { flags } from '@adonisjs/core/ace'
import { OperatorCommand } from '#console/operator_command'
import { describeRowsDone, progressLine } from '#console/progress_line'
import { reprojectHistory } from '#services/collections/history/reproject_history'

export default class HistoryReproject extends OperatorCommand {
  static commandName = 'history:reproject'
  static description =
    'Re-project stored exchange evidence with the current allowlists (resumable, safe to run concurrently)'

  @flags.boolean({ description: 'Count the rows that would be re-projected; change nothing' })
  declare dryRun?: boolean

  /** Where the progress line goes; only drawn on a terminal. */
  progressOutput: NodeJS.WriteStream = process.stderr

  protected async execute(stop: AbortSignal) {
    const progress = this.progressOutput.isTTY
      ? progressLine(this.progressOutput, describeRowsDone)
      : null
    try {
      return await reprojectHistory({
        dryRun: this.dryRun === true,
        onProgress: progress?.update,
        signal: stop,
      })
    } finally {
      progress?.done()
    }
  }
}
