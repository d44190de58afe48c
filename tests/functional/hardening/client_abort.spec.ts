/*
| A client that closes its connection before its body has arrived (a cancelled
| upload, a load generator stopping mid-request) is not a failure of the service: it
| is logged as an abort, never as an "unexpected failure" (which operators alert on).
*/
import { test } from '@japa/runner'
import { captureLogs } from '#tests/helpers/logs'
import { resetState } from '#tests/helpers/database'
import { route } from '#tests/helpers/routes'
import { connectToServer, writeHeadUntilContinued } from '#tests/helpers/test_server'
import { pause, REQUEST_MS } from '#tests/helpers/server_process'

/** Polls `lines` every 20 ms until one contains any of `needles`; null after REQUEST_MS. */
async function firstLineWith(lines: string[], needles: string[]) {
  const giveUpAt = performance.now() + REQUEST_MS
  do {
    const line = lines.find((candidate) => needles.some((needle) => candidate.includes(needle)))
    if (line) return line
    await pause(20)
  } while (performance.now() < giveUpAt)
  return null
}

test.group('Hardening › client aborts', (group) => {
  group.each.setup(() => resetState())

  test('a body cut off by the client is logged as an abort, not an unexpected failure', async ({
    assert,
  }) => {
    const logs = captureLogs()
    try {
      const socket = await connectToServer()
      // Expect: 100-continue, so the server has taken the request before the body is cut.
      await writeHeadUntilContinued(
        socket,
        `POST ${route('auth.reset_link')} HTTP/1.1\r\n` +
          `Host: ${process.env.HOST}\r\n` +
          'Content-Type: application/json\r\n' +
          'Expect: 100-continue\r\n' +
          'Content-Length: 4096\r\n\r\n'
      )
      socket.write('{"email":"someone@')
      socket.destroy()

      const line = await firstLineWith(logs.lines, [
        'request aborted by the client',
        'unexpected failure',
      ])
      assert.isNotNull(line, 'the server logged nothing about the aborted request')
      assert.include(line!, 'request aborted by the client')
      assert.isFalse(logs.lines.some((candidate) => candidate.includes('unexpected failure')))
    } finally {
      logs.restore()
    }
  })
})
