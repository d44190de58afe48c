/*
| The `outbox` mail transport (decisions.md §3 MAIL_MAILER=outbox): instead of
| sending, writes one JSON file per message, `{to, from, subject, text, html,
| sent_at}`, into MAIL_OUTBOX_DIR so that a developer can open the mails and click
| their links. The default outside production.
|
| Files are written under a temporary name and renamed, so a reader never sees a
| half-written message, and are readable by their owner only (they hold one-time
| proofs).
*/
import { randomBytes } from 'node:crypto'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { MailResponse } from '@adonisjs/mail'
import type { MailTransportContract, NodeMailerMessage, Recipient } from '@adonisjs/mail/types'

export interface OutboxMessage {
  to: string
  from: string
  subject: string
  text: string
  html: string
  sent_at: string
}

function address(recipient: Recipient | undefined): string {
  if (recipient === undefined) return ''
  if (typeof recipient === 'string') return recipient
  return recipient.name
    ? `"${recipient.name.replace(/["\\]/g, '')}" <${recipient.address}>`
    : recipient.address
}

function content(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (Buffer.isBuffer(value)) return value.toString('utf8')
  return String(value)
}

export class OutboxTransport implements MailTransportContract {
  constructor(private readonly directory: string) {}

  async send(message: NodeMailerMessage) {
    const sentAt = new Date()
    const record: OutboxMessage = {
      to: (message.to ?? []).map(address).join(', '),
      from: address(message.from),
      subject: content(message.subject),
      text: content(message.text),
      html: content(message.html),
      sent_at: sentAt.toISOString(),
    }
    const id = `${sentAt.toISOString().replace(/[:.]/g, '-')}-${randomBytes(6).toString('hex')}`
    await mkdir(this.directory, { recursive: true, mode: 0o700 })
    const file = join(this.directory, `${id}.json`)
    const temporary = join(this.directory, `.${id}.tmp`)
    await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 })
    await rename(temporary, file)
    const envelope = { from: record.from, to: (message.to ?? []).map(address) }
    return new MailResponse(`<${id}@outbox>`, envelope, { file })
  }
}
