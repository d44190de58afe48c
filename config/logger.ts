import env from '#start/env'
import app from '@adonisjs/core/services/app'
import { defineConfig, targets } from '@adonisjs/core/logger'
import { currentTraceFields } from '#support/trace_context'
import { CENSOR, SECRET_KEYS, redactSecrets } from '#support/log_redaction'

/*
| Structured JSON logs (pino). Every request logger carries `request_id`, and every
| line written during a request its `trace_id` and `span_id` (app/support/trace_context.ts).
| Credentials are censored wherever they could appear in a logged object or a child
| logger's bindings (app/support/log_redaction.ts).
|
| In development the same lines are printed human-readable by pino-pretty.
| It is a dev dependency, absent from production installs: production, tests and a
| development run without it write JSON.
*/
function prettyPrinterInstalled() {
  try {
    import.meta.resolve('pino-pretty')
    return true
  } catch {
    return false
  }
}

const destination =
  app.inDev && prettyPrinterInstalled()
    ? targets.pretty({
        ignore: 'pid,hostname',
        translateTime: 'SYS:HH:MM:ss.l',
        // Decided here: the printer runs in a worker thread, which sees no terminal.
        colorize: Boolean(process.stdout.isTTY),
      })
    : targets.file({ destination: 1 })

const loggerConfig = defineConfig({
  default: 'app',
  loggers: {
    app: {
      enabled: true,
      name: 'merchant-portal',
      level: env.get('LOG_LEVEL') ?? (app.inTest ? 'silent' : 'info'),
      mixin: currentTraceFields,
      formatters: { log: redactSecrets },
      // A child logger's bindings do not pass the formatter: pino censors these keys
      // there itself (literal paths only, so other values skip its redactor).
      redact: { paths: SECRET_KEYS, censor: CENSOR },
      transport: {
        targets: [destination],
      },
    },
  },
})

export default loggerConfig

declare module '@adonisjs/core/types' {
  export interface LoggersList extends InferLoggers<typeof loggerConfig> {}
}
