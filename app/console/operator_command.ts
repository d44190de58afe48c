/*
| Shared behaviour of operator commands (decisions.md §4): one JSON object on
| stdout on success; a clear message on stderr and a non-zero exit on bad input.
*/
import { BaseCommand } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { errors as vineErrors } from '@vinejs/vine'
import ApiError from '#exceptions/api_error'
import settings from '#config/settings'
import { pushJobMetrics } from '#support/operator_metrics'

export class OperatorInputError extends Error {}

export abstract class OperatorCommand extends BaseCommand {
  static options: CommandOptions = { startApp: true }

  protected abstract execute(): Promise<Record<string, unknown>>

  async run() {
    try {
      // A stray argument (a second file, a word after history:purge) is a mistake to
      // report, not something to ignore while the command does its work.
      const stray = this.parsed._
      if (stray.length > 0) {
        throw new OperatorInputError(`unexpected argument: ${stray.map(String).join(' ')}`)
      }
      const result = await this.execute()
      this.logger.log(JSON.stringify(result))
    } catch (error) {
      this.exitCode = 1
      this.logger.logError(`error: ${this.describe(error)}`)
    }
    // docs/operations.md › Metrics: batch jobs push what they counted.
    const command = (this.constructor as typeof BaseCommand).commandName
    await pushJobMetrics(
      settings.metricsPushgatewayUrl(),
      command,
      this.exitCode ? 'failure' : 'success'
    ).catch((error: Error) =>
      // On standard error: standard output holds only the command's JSON.
      this.logger.logError(`warning: metrics not pushed to the Pushgateway: ${error.message}`)
    )
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
    if (error instanceof OperatorInputError || error instanceof ApiError) return error.message
    return error instanceof Error ? error.message : String(error)
  }
}
