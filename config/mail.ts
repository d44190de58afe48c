/*
| Mail (decisions.md §3): MAIL_MAILER picks the transport, `outbox` by default
| outside production and `smtp` in production.
|
| - smtp: SMTP_HOST, SMTP_PORT, SMTP_USERNAME/SMTP_PASSWORD (optional), MAIL_FROM.
| - outbox: one JSON file per message under MAIL_OUTBOX_DIR (default tmp/outbox).
|
| Transports are built from the environment when first used (and again after
| `mail.close(name)`), and app/services/mailer.ts reads MAIL_MAILER per send, so a
| test can point the service at its own SMTP sink.
*/
import { isAbsolute } from 'node:path'
import app from '@adonisjs/core/services/app'
import env from '#start/env'
import { defineConfig } from '@adonisjs/mail'
import { SMTPTransport } from '@adonisjs/mail/transports/smtp'
import { OutboxTransport } from '#mails/transports/outbox_transport'
import { socketsWithDeadline } from '#mails/transports/smtp_session_deadline'
import settings from '#config/settings'

export type MailerName = 'smtp' | 'outbox'

/** The transport in force now: MAIL_MAILER, else `smtp` in production and `outbox` elsewhere. */
export function configuredMailer(): MailerName {
  return env.get('MAIL_MAILER') ?? (app.inProduction ? 'smtp' : 'outbox')
}

export function outboxDirectory(): string {
  const configured = env.get('MAIL_OUTBOX_DIR')
  if (!configured) return app.tmpPath('outbox')
  return isAbsolute(configured) ? configured : app.makePath(configured)
}

const mailConfig = defineConfig({
  default: configuredMailer(),
  from: {
    address: env.get('MAIL_FROM') ?? 'no-reply@merchant-portal.local',
    name: 'Merchant Portal',
  },
  mailers: {
    smtp: () => {
      const user = env.get('SMTP_USERNAME')
      const host = env.get('SMTP_HOST') ?? '127.0.0.1'
      const port = env.get('SMTP_PORT') ?? 587
      const options = {
        host,
        port,
        auth: user
          ? { type: 'login' as const, user, pass: env.get('SMTP_PASSWORD') ?? '' }
          : undefined,
        // A stuck relay must not hold a request or a background send for minutes:
        // these bound each phase, the session's deadline bounds them all.
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
        getSocket: socketsWithDeadline(host, port, settings.smtpSendTimeoutSeconds()),
      }
      return new SMTPTransport(options)
    },
    outbox: () => new OutboxTransport(outboxDirectory()),
  },
})

export default mailConfig

declare module '@adonisjs/mail/types' {
  export interface MailersList extends InferMailers<typeof mailConfig> {}
}
