/*
| An idle kept-alive connection stays open KEEP_ALIVE_TIMEOUT_SECONDS after its last
| answer, which announces it (app/http/client_error.ts): an operator behind a balancer
| that keeps idle connections sets it above the balancer's idle timeout. The service
| runs as its own process with 1 s; nothing is timed: the connection must be closed by
| the server within the test's own bound (REQUEST_MS), and the answer must announce the
| set value, not Node's default of 5.
*/
import { test } from '@japa/runner'
import { route } from '#tests/helpers/routes'
import { sendRaw } from '#tests/helpers/raw_http'
import { startProductionServer, type ServerProcess } from '#tests/helpers/server_process'

test.group('An idle kept-alive connection and KEEP_ALIVE_TIMEOUT_SECONDS', (group) => {
  let server: ServerProcess
  group.setup(async () => {
    server = await startProductionServer({ KEEP_ALIVE_TIMEOUT_SECONDS: '1' })
    return () => server.kill()
  })

  test('the answer announces the set keep-alive timeout, and the server closes the idle connection', async ({
    assert,
  }) => {
    const request = `GET ${route('health.live')} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`
    // sendRaw returns once the server has closed the connection.
    const response = await sendRaw(Buffer.from(request), { port: server.port })
    assert.equal(response.statusLine, 'HTTP/1.1 200 OK')
    assert.equal(response.headers['connection'], 'keep-alive')
    assert.equal(response.headers['keep-alive'], 'timeout=1')
  }).timeout(120_000)
})
