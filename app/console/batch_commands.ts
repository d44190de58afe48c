/*
| The operator commands that work in batches (decisions.md §4): they stop at a batch
| boundary on SIGTERM and SIGINT (operator_command.ts), and they run below the API
| server's CPU priority, so that an import, a purge, a reprojection or a prune on the
| server's host takes the cores the server's requests and password hashes leave
| (docs/operations.md › CPU priorities).
|
| The priority is lowered as the application boots, before the command's modules load:
| most of a short command's time is that boot.
*/
import settings from '#config/settings'
import { lowerEveryThread } from '#platform/thread_priority'

export const BATCH_COMMANDS: ReadonlySet<string> = new Set([
  'collections:import',
  'history:purge',
  'history:reproject',
  'auth:prune',
])

/** The command an ace command line names: its first word that is not a flag. */
export function commandNameOf(commandLine: readonly string[]): string | undefined {
  return commandLine.find((word) => !word.startsWith('-'))
}

/**
 * When `commandLine` (ace's arguments) runs a batch command, every thread of this
 * process goes down to BATCH_COMMAND_NICE (0 leaves them where they are).
 */
export function lowerBatchCommandPriority(commandLine: readonly string[]) {
  const commandName = commandNameOf(commandLine)
  if (!commandName || !BATCH_COMMANDS.has(commandName)) return
  const nice = settings.batchCommandNice()
  if (nice > 0) lowerEveryThread(nice)
}
