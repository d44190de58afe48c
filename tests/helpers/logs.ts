import { Logger } from '@adonisjs/core/logger'
import { eventually, REQUEST_MS } from '#tests/helpers/server_process'

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const

/**
 * Records every call made to the application's loggers, whatever the configured
 * level (tests run with LOG_LEVEL=silent), so tests can assert what would be logged.
 */
export function captureLogs() {
  const lines: string[] = []
  const originals = LEVELS.map((level) => [level, Logger.prototype[level]] as const)
  for (const [level, original] of originals) {
    Logger.prototype[level] = function (this: Logger, ...args: unknown[]) {
      // Child loggers (e.g. the request's, with request_id) carry bindings of their own.
      const bindings = this?.pino?.bindings?.() ?? {}
      lines.push(
        JSON.stringify({ bindings, args }, (_key, value) =>
          value instanceof Error ? { message: value.message, stack: value.stack } : value
        )
      )
      return Reflect.apply(original, this, args)
    }
  }
  return {
    lines,
    restore: () => {
      for (const [level, original] of originals) Logger.prototype[level] = original
    },
  }
}

/** Waits until `logs` hold the line of a request whose client left (app/exceptions/handler.ts). */
export function untilDepartureLogged(logs: { lines: string[] }) {
  return eventually(
    async () => logs.lines.some((line) => line.includes('request abandoned by the client')),
    'the departure logged',
    { within: REQUEST_MS, every: 5 }
  )
}
