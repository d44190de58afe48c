import { Logger } from '@adonisjs/core/logger'

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
