import { test } from '@japa/runner'
import { useMailTransport } from '#tests/helpers/mail'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { resetState } from '#tests/helpers/database'
import { PORTAL_ORIGIN, signedInMember } from '#tests/helpers/portal'
import { pathOf } from '#tests/helpers/profile'
import { settleBackgroundDeliveries } from '#services/mailer'
import User from '#models/user'
import { route } from '#tests/helpers/routes'
import { appUrl } from '#config/app'

interface Received {
  from: string
  to: string[]
  raw: string
}

/** A local SMTP sink on a free port that keeps what it receives. */
async function startSmtpSink() {
  const received: Received[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  return {
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Decodes quoted-printable soft breaks and escapes, enough to search a raw message. */
function decodeQuotedPrintable(raw: string) {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16))
    )
}

/** Uses the given transport settings, and the Portal's origin, for one test. */
function useTransport(settings: Record<string, string | number | undefined>) {
  return useMailTransport({ ...settings, PORTAL_URL: PORTAL_ORIGIN })
}

test.group('Mail delivery', (group) => {
  group.each.setup(() => resetState())

  test('the verification mail goes through the real SMTP transport to the new address', async ({
    client,
    assert,
    cleanup,
  }) => {
    const sink = await startSmtpSink()
    cleanup(() => sink.close())
    cleanup(
      await useTransport({
        MAIL_MAILER: 'smtp',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: sink.port,
        SMTP_USERNAME: undefined,
      })
    )
    const { bearer } = await signedInMember()
    const response = await client
      .patch(route('profile.update'))
      .header('Authorization', bearer)
      .json({ email: 'smtp-next@example.test' })
    response.assertStatus(200)
    assert.lengthOf(sink.received, 1)
    const [message] = sink.received
    assert.deepEqual(message.to, ['smtp-next@example.test'])
    assert.include(message.raw, 'text/plain')
    assert.include(message.raw, 'text/html')
    const decoded = decodeQuotedPrintable(message.raw)
    const otp = /\n {4}([0-9]{6})\r?\n/.exec(decoded)?.[1]
    assert.isDefined(otp)
    const link = /(https?:\/\/[^\s"</]+\/portal\/profile\/email\/verify\/[^\s"<]+)/.exec(
      decoded
    )?.[1]
    assert.isTrue(link?.startsWith(`${appUrl}/`), link)
    const verified = await client
      .post(route('profile.email.verify'))
      .header('Authorization', bearer)
      .json({ otp })
    verified.assertStatus(200)
    assert.equal(verified.body().data.email, 'smtp-next@example.test')
  })

  test('the reset mail goes through SMTP after the response', async ({
    client,
    assert,
    cleanup,
  }) => {
    const sink = await startSmtpSink()
    cleanup(() => sink.close())
    cleanup(
      await useTransport({ MAIL_MAILER: 'smtp', SMTP_HOST: '127.0.0.1', SMTP_PORT: sink.port })
    )
    const { user } = await signedInMember()
    const response = await client
      .post(route('auth.reset_link'))
      .json({ email: user.email, reset_url: `${PORTAL_ORIGIN}/reset` })
    response.assertStatus(200)
    await settleBackgroundDeliveries()
    assert.lengthOf(sink.received, 1)
    assert.deepEqual(sink.received[0].to, [user.email])
    assert.include(decodeQuotedPrintable(sink.received[0].raw), `${PORTAL_ORIGIN}/reset?token=`)
  })

  test('a failing transport never turns the answer into an error nor rolls the change back', async ({
    client,
    assert,
    cleanup,
  }) => {
    const sink = await startSmtpSink()
    await sink.close() // nothing listens on this port any more
    cleanup(
      await useTransport({ MAIL_MAILER: 'smtp', SMTP_HOST: '127.0.0.1', SMTP_PORT: sink.port })
    )
    const { bearer, user } = await signedInMember()
    const response = await client
      .patch(route('profile.update'))
      .header('Authorization', bearer)
      .json({ email: 'unlucky@example.test' })
    response.assertStatus(200)
    assert.equal(response.body().data.pending_email, 'unlucky@example.test')
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.pendingEmail, 'unlucky@example.test')
    const resent = await client.post(route('profile.email.resend')).header('Authorization', bearer)
    resent.assertStatus(200)
    const reset = await client
      .post(route('auth.reset_link'))
      .json({ email: user.email, reset_url: `${PORTAL_ORIGIN}/reset` })
    reset.assertStatus(200)
  })

  test('the outbox transport writes one JSON file per message whose link works', async ({
    client,
    assert,
    cleanup,
  }) => {
    const directory = await mkdtemp(join(tmpdir(), 'outbox-'))
    cleanup(() => rm(directory, { recursive: true, force: true }))
    cleanup(
      await useTransport({
        MAIL_MAILER: 'outbox',
        MAIL_OUTBOX_DIR: join(directory, 'nested'),
        MAIL_FROM: undefined,
      })
    )
    const { bearer, user } = await signedInMember()
    const response = await client
      .patch(route('profile.update'))
      .header('Authorization', bearer)
      .json({ email: 'outbox-next@example.test' })
    response.assertStatus(200)
    const names = await readdir(join(directory, 'nested'))
    const files = names.filter((name) => name.endsWith('.json'))
    assert.lengthOf(files, 1)
    const file = join(directory, 'nested', files[0])
    const info = await stat(file)
    assert.equal(info.mode & 0o777, 0o600)
    const record = JSON.parse(await readFile(file, 'utf8'))
    assert.sameMembers(Object.keys(record), ['to', 'from', 'subject', 'text', 'html', 'sent_at'])
    assert.equal(record.to, 'outbox-next@example.test')
    assert.include(record.from, '@')
    assert.isNotEmpty(record.subject)
    assert.match(record.sent_at, /^\d{4}-\d{2}-\d{2}T/)
    const link = /(https?:\/\/[^\s/]+\/portal\/profile\/email\/verify\/\S+)/.exec(record.text)![1]
    assert.isTrue(link.startsWith(`${appUrl}/`), link)
    assert.include(record.html, link.replace(/&/g, '&amp;'))
    const opened = await client.get(pathOf(link)).redirects(0)
    opened.assertStatus(302)
    assert.equal(opened.header('location'), `${PORTAL_ORIGIN}/?email_verification=verified`)
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.email, 'outbox-next@example.test')
  })
})
