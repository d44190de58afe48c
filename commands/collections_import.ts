/*
| `node ace collections:import FILE|-` (decisions.md §4-5): imports transactions and
| their exchange evidence from JSON Lines; `-` reads standard input. Prints the counts
| as one JSON object; on a terminal, a progress line (lines, rows/s, bytes read) goes
| to standard error. A bad line exits non-zero with its line number. SIGTERM or SIGINT
| stops it after the batch in progress (docs/collections-operations.md).
*/
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { args } from '@adonisjs/core/ace'
import { OperatorCommand, OperatorInputError } from '#console/operator_command'
import { importJsonLines } from '#services/collections/import/import_transactions'
import { describeLinesRead, progressLine } from '#console/progress_line'
import { recordImportRows } from '#support/operator_metrics'

export default class CollectionsImport extends OperatorCommand {
  static commandName = 'collections:import'
  static description =
    'Import transactions and exchange evidence from JSON Lines (FILE, or - for standard input)'
  static help = [
    'One transaction per line, with its exchange evidence events, in the',
    'import format documented in docs/import-format.md.',
    'What a bad line does, how re-imports behave and how to stop an import:',
    'docs/collections-operations.md, section "collections:import".',
    '',
    '  {{ binaryName }} collections:import export.jsonl',
    '  zcat export.jsonl.gz | {{ binaryName }} collections:import -',
  ]

  @args.string({ description: 'JSON Lines file, or - for standard input' })
  declare file: string

  /** Standard input when FILE is `-` (tests give their own stream). */
  stdin: Readable = process.stdin
  /** Where the progress line goes; only drawn on a terminal. */
  progressOutput: NodeJS.WriteStream = process.stderr

  protected async execute(stop: AbortSignal) {
    const input = await this.open()
    const progress = this.progressOutput.isTTY
      ? progressLine(this.progressOutput, describeLinesRead)
      : null
    const started = performance.now()
    try {
      const result = await importJsonLines(input, { onProgress: progress?.update, signal: stop })
      recordImportRows('imported', result.transactions)
      return { ...result, duration_ms: Math.round(performance.now() - started) }
    } catch (error) {
      // A bad line stops the import: that line is the one rejected.
      recordImportRows('rejected', 1)
      throw error
    } finally {
      progress?.done()
    }
  }

  private async open(): Promise<Readable> {
    if (this.file === '-') return this.stdin
    const info = await stat(this.file).catch(() => null)
    if (!info) throw new OperatorInputError(`${this.file}: no such file`)
    if (info.isDirectory()) throw new OperatorInputError(`${this.file}: is a directory, not a file`)
    if (!info.isFile()) throw new OperatorInputError(`${this.file}: not a regular file`)
    return createReadStream(this.file, { highWaterMark: 1024 * 1024 })
  }
}
