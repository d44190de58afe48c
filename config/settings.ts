/*
| The settings the application reads while it runs, from the validated environment
| (start/env.ts, decisions.md §3), with their defaults: app/ reads configuration here,
| never from start/. Each is read when used, not when this module loads: tests change
| them through #start/env (tests/helpers/env.ts), and a command module that ace loads
| before start/runtime.ts has set APP_KEY must not freeze an empty key.
*/
import env from '#start/env'

export const settings = {
  environment: () => env.get('NODE_ENV'),
  /** APP_URL, HOST, PORT: where this service is reached (app/support/service_url.ts). */
  appUrl: () => env.get('APP_URL'),
  host: () => env.get('HOST'),
  port: () => env.get('PORT'),
  /** The application key as configured (the encrypter's key material). */
  appKeyText: () => env.get('APP_KEY') ?? '',
  portalUrl: () => env.get('PORTAL_URL'),
  /** Whether reads may go to a replica (the `read` connection, config/database.ts). */
  hasReadReplica: () => Boolean(env.get('DATABASE_READ_URL')),
  historyRetentionMonths: () => env.get('HISTORY_RETENTION_MONTHS') ?? 12,
  /** REPORTING_DEFAULT_TIMEZONE, unchecked (app/validators/reporting.ts checks it). */
  reportingDefaultTimezone: () => env.get('REPORTING_DEFAULT_TIMEZONE'),
  logoImageConcurrency: () => env.get('LOGO_IMAGE_CONCURRENCY') ?? 1,
  logoImageQueue: () => env.get('LOGO_IMAGE_QUEUE') ?? 4,
  logoImageSecondsPerMinute: () => env.get('LOGO_IMAGE_SECONDS_PER_MINUTE') ?? 15,
  logoImageDeadlineSeconds: () => env.get('LOGO_IMAGE_DEADLINE_SECONDS') ?? 20,
  /** PASSWORD_HASH_QUEUE as set (config/hash.ts sizes the default from the threads). */
  passwordHashQueue: () => env.get('PASSWORD_HASH_QUEUE'),
  passwordHashMaxWaitMs: () => env.get('PASSWORD_HASH_MAX_WAIT_MS') ?? 3000,
  /** The nice level batch operator commands run at (app/console/batch_commands.ts). */
  batchCommandNice: () => env.get('BATCH_COMMAND_NICE') ?? 10,
  metricsPushgatewayUrl: () => env.get('METRICS_PUSHGATEWAY_URL'),
  shutdownDrainMs: () => Math.max(0, env.get('SHUTDOWN_DRAIN_MS') ?? 0),
  /** Seconds a client has to send its whole request (app/http/client_error.ts). */
  requestTimeoutSeconds: () => env.get('REQUEST_TIMEOUT_SECONDS') ?? 120,
  /** Seconds an idle kept-alive connection stays open after an answer (app/http/client_error.ts). */
  keepAliveTimeoutSeconds: () => env.get('KEEP_ALIVE_TIMEOUT_SECONDS') ?? 5,
  /** Connections one server process holds open at most (app/http/connection_cap.ts). */
  maxConnections: () => env.get('MAX_CONNECTIONS') ?? 10_000,
  /** Seconds a whole SMTP session may take (app/mails/transports/smtp_session_deadline.ts). */
  smtpSendTimeoutSeconds: () => env.get('SMTP_SEND_TIMEOUT_SECONDS') ?? 30,
  /** PAT_TTL_MINUTES as set (app/services/sessions/sign_in.ts applies the default). */
  patTtlMinutes: () => env.get('PAT_TTL_MINUTES'),
  /** MACHINE_TOKEN_TTL_SECONDS and MACHINE_API_ENABLED as set (app/auth/machine_access_tokens.ts). */
  machineTokenTtlSeconds: () => env.get('MACHINE_TOKEN_TTL_SECONDS') as unknown,
  machineApiEnabled: () => env.get('MACHINE_API_ENABLED') as unknown,
  resetLinkCooldownMinutes: () => env.get('RESET_LINK_COOLDOWN_MINUTES') ?? 5,
  resetLinkMailsPerHour: () => env.get('RESET_LINK_MAILS_PER_HOUR') ?? 3,
  /** A limit's own override (its variable in app/limits/limits.ts) and the multiplier. */
  limitOverride: (variable: string) => env.get(variable as any) as unknown,
  rateLimitMultiplier: () => env.get('RATE_LIMIT_MULTIPLIER') as unknown,
}

export default settings
