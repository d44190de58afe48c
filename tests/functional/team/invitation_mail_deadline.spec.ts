import { test } from '@japa/runner'
import { useMailTransport } from '#tests/helpers/mail'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { TEST_PORTAL_URL } from '#tests/helpers/team'
import { route } from '#tests/helpers/routes'
import TeamInvitation from '#models/team_invitation'

/**
 * A relay that greets at once and then, to EHLO, starts a multi-line reply that never
 * ends: a line every 200 ms, so no silence ever lasts long enough for a socket timeout.
 */
async function startTricklingRelay() {
  const sessions: { closed: boolean }[] = []
  const timers = new Set<NodeJS.Timeout>()
  const sockets = new Set<Socket>()
  const server = createServer((socket: Socket) => {
    sockets.add(socket)
    const session = { closed: false }
    sessions.push(session)
    socket.on('error', () => {})
    socket.write('220 relay.example.test ESMTP\r\n')
    socket.once('data', () => {
      socket.write('250-relay.example.test\r\n')
      const trickle = setInterval(() => socket.write('250-SIZE 10240000\r\n'), 200)
      timers.add(trickle)
      socket.once('close', () => {
        clearInterval(trickle)
        timers.delete(trickle)
      })
    })
    socket.once('close', () => (session.closed = true))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    sessions,
    close: () => {
      for (const timer of timers) clearInterval(timer)
      for (const socket of sockets) socket.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

test.group('Invitation mail: the SMTP session deadline', (group) => {
  group.each.setup(() => resetState())

  test('a relay that never finishes its reply fails the send at SMTP_SEND_TIMEOUT_SECONDS: the invitation stays pending, sent: false, the session closed', async ({
    client,
    assert,
    cleanup,
  }) => {
    const relay = await startTricklingRelay()
    cleanup(() => relay.close())
    cleanup(
      await useMailTransport({
        PORTAL_URL: TEST_PORTAL_URL,
        MAIL_MAILER: 'smtp',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: relay.port,
        SMTP_USERNAME: undefined,
        SMTP_SEND_TIMEOUT_SECONDS: 1,
      })
    )

    const team = await signedInMember('administrator')
    const response = await client
      .post(route('team.invitations.store'))
      .header('Authorization', team.bearer)
      .json({ email: 'slow-relay@example.test', role: 'developer' })

    response.assertStatus(201)
    assert.isFalse(response.body().data.sent)
    assert.match(response.body().message, /resend/i)
    const stored = await TeamInvitation.findOrFail(response.body().data.id)
    assert.equal(stored.status, 'pending')
    assert.lengthOf(relay.sessions, 1)
    assert.isTrue(
      relay.sessions[0].closed,
      'the session with the relay is closed, not left running'
    )
  }).timeout(15_000)
})
