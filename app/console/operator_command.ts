/*
| Shared behaviour of operator commands (decisions.md §4): one JSON object on
| stdout on success; a clear message on stderr and a non-zero exit on bad input.
| Boolean flags take only the forms their --help names (boolean_flags.ts). Long
| commands stop at a batch boundary on SIGTERM and SIGINT (stop_request.ts).
*/
import { BaseCommand } from '@adonisjs/core/ace'
import type { CommandOptions, FlagsParserOptions } from '@adonisjs/core/types/ace'
import { errors as vineErrors } from '@vinejs/vine'
import ApiError from '#exceptions/api_error'
import settings from '#config/settings'
import { pushJobMetrics } from '#support/operator_metrics'
import { BooleanFlagError, booleanFlagForms, readBooleanFlag } from '#console/boolean_flags'
import { claimStopRequest } from '#console/stop_request'
import { BATCH_COMMANDS } from '#console/batch_commands'

export class OperatorInputError extends Error {}

type FlagOptions = Parameters<typeof BaseCommand.defineFlag>[1]

export abstract class OperatorCommand extends BaseCommand {
  static options: CommandOptions = { startApp: true }

  /**
   * Commands that work in batches (batch_commands.ts): SIGTERM and SIGINT abort the
   * signal given to execute(), the operation stops at its next batch boundary and
   * returns `interrupted: true`, and the command exits with the signal's code.
   */
  static get stopsAtBatchBoundaries() {
    return BATCH_COMMANDS.has(this.commandName)
  }

  protected abstract execute(stop: AbortSignal): Promise<Record<string, unknown>>

  /** A boolean flag's --help names the forms it takes. */
  static defineFlag(name: string, options: FlagOptions) {
    if (options.type !== 'boolean') return super.defineFlag(name, options)
    super.defineFlag(name, options)
    const flag = this.flags.at(-1)!
    flag.description = `${flag.description ?? ''} (${booleanFlagForms(flag.flagName)})`.trim()
  }

  /**
   * Boolean flags are parsed as text, so that readBooleanFlags() sees what was given
   * (Ace would read `--dry-run=1` as false). Global flags (--help, --ansi) are left alone.
   */
  static getParserOptions(options?: FlagsParserOptions) {
    const parserOptions = super.getParserOptions(options)
    const own = this.flags.filter((flag) => flag.type === 'boolean').map((flag) => flag.flagName)
    const flagsOptions = parserOptions.flagsParserOptions
    flagsOptions.boolean = flagsOptions.boolean.filter((name) => !own.includes(name))
    flagsOptions.string = [...flagsOptions.string, ...own]
    return parserOptions
  }

  async run() {
    const Command = this.constructor as typeof OperatorCommand
    const stop = Command.stopsAtBatchBoundaries
      ? claimStopRequest((message) => this.logger.logError(message))
      : null
    try {
      this.readBooleanFlags()
      // A stray argument (a second file, a word after history:purge) is a mistake to
      // report, not something to ignore while the command does its work.
      const stray = this.parsed._
      if (stray.length > 0) {
        throw new OperatorInputError(`unexpected argument: ${stray.map(String).join(' ')}`)
      }
      const result = await this.execute(stop?.signal ?? new AbortController().signal)
      this.logger.log(JSON.stringify(result))
      if (stop && result.interrupted === true) this.exitCode = stop.exitCode()
    } catch (error) {
      this.exitCode = 1
      this.logger.logError(`error: ${this.describe(error)}`)
    } finally {
      stop?.release()
    }
    // docs/operations.md › Metrics: batch jobs push what they counted.
    await pushJobMetrics(
      settings.metricsPushgatewayUrl(),
      Command.commandName,
      this.exitCode ? 'failure' : 'success'
    ).catch((error: Error) =>
      // On standard error: standard output holds only the command's JSON.
      this.logger.logError(`warning: metrics not pushed to the Pushgateway: ${error.message}`)
    )
  }

  /** Each boolean flag, from the text given to a boolean (or an error naming the flag). */
  private readBooleanFlags() {
    const Command = this.constructor as typeof OperatorCommand
    for (const flag of Command.flags) {
      if (flag.type === 'boolean') {
        Reflect.set(this, flag.name, readBooleanFlag(flag.flagName, Reflect.get(this, flag.name)))
      }
    }
  }

  /** How an input field is named to the operator: its flag, unless a command says otherwise. */
  protected inputName(field: string): string {
    return `--${field.replaceAll('_', '-')}`
  }

  private describe(error: unknown): string {
    if (error instanceof vineErrors.E_VALIDATION_ERROR) {
      return (error.messages as Array<{ field: string; message: string }>)
        .map((item) => `${this.inputName(item.field)}: ${item.message}`)
        .join('; ')
    }
    if (error instanceof ApiError && error.fieldErrors) {
      return Object.entries(error.fieldErrors)
        .map(([field, messages]) => `${this.inputName(field)}: ${messages.join(' ')}`)
        .join('; ')
    }
    if (
      error instanceof OperatorInputError ||
      error instanceof BooleanFlagError ||
      error instanceof ApiError
    ) {
      return error.message
    }
    return error instanceof Error ? error.message : String(error)
  }
}
