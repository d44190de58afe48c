/*
| Environment variables, validated once at boot (decisions.md §3).
*/
import { Env } from '@adonisjs/core/env'

export default await Env.create(new URL('../', import.meta.url), {
  NODE_ENV: Env.schema.enum(['development', 'production', 'test'] as const),
  HOST: Env.schema.string.optional({ format: 'host' }),
  PORT: Env.schema.number.optional(),
  APP_KEY: Env.schema.string.optional(),
  APP_URL: Env.schema.string.optional({ format: 'url', tld: false }),
  PORTAL_URL: Env.schema.string.optional(),
  LOG_LEVEL: Env.schema.string.optional(),
  TRUSTED_PROXIES: Env.schema.string.optional(),

  DATABASE_URL: Env.schema.string.optional(),
  DATABASE_READ_URL: Env.schema.string.optional(),
  DATABASE_STATEMENT_TIMEOUT_MS: Env.schema.number.optional(),
  EMBEDDED_POSTGRES_PORT: Env.schema.number.optional(),
  REDIS_URL: Env.schema.string.optional(),

  MAIL_MAILER: Env.schema.enum.optional(['smtp', 'outbox'] as const),
  MAIL_OUTBOX_DIR: Env.schema.string.optional(),
  MAIL_FROM: Env.schema.string.optional(),
  SMTP_HOST: Env.schema.string.optional(),
  SMTP_PORT: Env.schema.number.optional(),
  SMTP_USERNAME: Env.schema.string.optional(),
  SMTP_PASSWORD: Env.schema.string.optional(),
  SMTP_SEND_TIMEOUT_SECONDS: Env.schema.number.optional(),

  DRIVE_DISK: Env.schema.enum.optional(['fs', 's3'] as const),
  AWS_ACCESS_KEY_ID: Env.schema.string.optional(),
  AWS_SECRET_ACCESS_KEY: Env.schema.string.optional(),
  AWS_REGION: Env.schema.string.optional(),
  S3_BUCKET: Env.schema.string.optional(),
  S3_ENDPOINT: Env.schema.string.optional({ format: 'url', tld: false }),
  S3_FORCE_PATH_STYLE: Env.schema.boolean.optional(),
  S3_CDN_URL: Env.schema.string.optional({ format: 'url', tld: false }),

  PAT_TTL_MINUTES: Env.schema.number.optional(),
  RESET_LINK_COOLDOWN_MINUTES: Env.schema.number.optional(),
  RESET_LINK_MAILS_PER_HOUR: Env.schema.number.optional(),
  MACHINE_API_ENABLED: Env.schema.boolean.optional(),
  MACHINE_TOKEN_TTL_SECONDS: Env.schema.number.optional(),
  REPORTING_DEFAULT_TIMEZONE: Env.schema.string.optional(),
  HISTORY_RETENTION_MONTHS: Env.schema.number.optional(),
  RATE_LIMIT_MULTIPLIER: Env.schema.number.optional(),

  // Operations (docs/operations.md): the Prometheus listener, and how long a SIGTERMed
  // server keeps serving while its readiness says 503 (load balancer drain).
  METRICS_PORT: Env.schema.number.optional(),
  METRICS_HOST: Env.schema.string.optional({ format: 'host' }),
  METRICS_PUSHGATEWAY_URL: Env.schema.string.optional(),
  SHUTDOWN_DRAIN_MS: Env.schema.number.optional(),
  // The nice level of batch operator commands (import, purge, reproject, prune).
  BATCH_COMMAND_NICE: Env.schema.number.optional(),
  // How long a client may take to send its whole request (line, headers and body).
  REQUEST_TIMEOUT_SECONDS: Env.schema.number.optional(),
  // How long an idle kept-alive connection stays open after an answer.
  KEEP_ALIVE_TIMEOUT_SECONDS: Env.schema.number.optional(),
  // Connections one server process holds open; more are closed as they arrive.
  MAX_CONNECTIONS: Env.schema.number.optional(),
  // Password hashing: hashes waiting for a thread, and the longest one may wait.
  PASSWORD_HASH_QUEUE: Env.schema.number.optional(),
  PASSWORD_HASH_MAX_WAIT_MS: Env.schema.number.optional(),
  // Logo decoding and encoding: images at once per process, uploads waiting, the
  // lane time one merchant's images may take per minute, and one image's deadline.
  LOGO_IMAGE_CONCURRENCY: Env.schema.number.optional(),
  LOGO_IMAGE_QUEUE: Env.schema.number.optional(),
  LOGO_IMAGE_SECONDS_PER_MINUTE: Env.schema.number.optional(),
  LOGO_IMAGE_DEADLINE_SECONDS: Env.schema.number.optional(),
})
