/*
| `node ace history:purge [--dry-run]` (decisions.md §4): purges exchange evidence past
| its retain_until unless it is on legal hold. Safe from cron on several hosts at once.
| SIGTERM or SIGINT stops it after the batch in progress (docs/collections-operations.md).
*/
import { flags } from '@adonisjs/core/ace'
import { OperatorCommand } from '#console/operator_command'
import { purgeExpiredEvidence } from '#services/collections/history/purge_history'

export default class HistoryPurge extends OperatorCommand {
  static commandName = 'history:purge'
  static description =
    'Purge exchange evidence past its retention unless on legal hold (safe to run concurrently)'

  @flags.boolean({ description: 'Count what would be purged; change nothing' })
  declare dryRun?: boolean

  protected async execute(stop: AbortSignal) {
    return purgeExpiredEvidence({ dryRun: this.dryRun === true, signal: stop })
  }
}
