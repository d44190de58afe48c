/*
| A server process holds at most MAX_CONNECTIONS connections open
| (app/http/connection_cap.ts): one more is closed as it arrives, unanswered, and
| counted; once a held one closes, a new connection is served again. The service runs as
| its own process with MAX_CONNECTIONS=2 and its metrics listener, which is not capped.
| Nothing is timed: without the cap, the third connection stays open past the test's
| own bound (REQUEST_MS) and the test fails.
*/
import net from 'node:net'
import { test } from '@japa/runner'
import { route } from '#tests/helpers/routes'
import {
  REQUEST_MS,
  eventually,
  freePort,
  startProductionServer,
  within,
  type ServerProcess,
} from '#tests/helpers/server_process'

/** A connection that asked for /health/live and stays open after its answer (keep-alive). */
async function heldConnection(port: number) {
  const socket = net.connect({ host: '127.0.0.1', port })
  socket.on('error', () => {})
  const answer = new Promise<string>((resolve) => {
    let received = ''
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1')
      if (received.includes('\r\n\r\n')) resolve(received.split('\r\n')[0])
    })
  })
  socket.write(`GET ${route('health.live')} HTTP/1.1\r\nHost: x\r\n\r\n`)
  return { socket, statusLine: await within(answer, REQUEST_MS, 'a held connection answered') }
}

/** What the server sent on a new connection before closing it. */
function receivedBeforeClose(port: number) {
  const socket = net.connect({ host: '127.0.0.1', port })
  let received = ''
  socket.on('data', (chunk) => (received += chunk.toString('latin1')))
  socket.on('error', () => {})
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)))
  return within(closed, REQUEST_MS, 'the connection past the bound closed').finally(() =>
    socket.destroy()
  )
}

test.group('MAX_CONNECTIONS', (group) => {
  let server: ServerProcess
  let metricsPort: number
  group.setup(async () => {
    metricsPort = await freePort()
    server = await startProductionServer({
      MAX_CONNECTIONS: '2',
      METRICS_PORT: String(metricsPort),
    })
    return () => server.kill()
  })

  async function metric(series: string) {
    const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
    const text = await response.text()
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
    return line === undefined ? undefined : Number(line.slice(series.length + 1))
  }
  const open = () => metric('portal_http_connections{state="open"}')

  test('a connection past the bound is closed unanswered and counted; a freed place serves again', async ({
    assert,
  }) => {
    // The start-up probe's kept-alive connection closes on the server's keep-alive timeout.
    await eventually(async () => (await open()) === 0, 'no connection open', { every: 200 })

    const first = await heldConnection(server.port)
    const second = await heldConnection(server.port)
    assert.equal(first.statusLine, 'HTTP/1.1 200 OK')
    assert.equal(second.statusLine, 'HTTP/1.1 200 OK')

    assert.equal(await receivedBeforeClose(server.port), '')
    assert.equal(await metric('portal_http_connections_dropped_total'), 1)
    assert.equal(await open(), 2)
    assert.equal(await metric('portal_http_connections{state="max"}'), 2)

    first.socket.destroy()
    await eventually(async () => (await open()) === 1, 'the closed connection released')
    const third = await heldConnection(server.port)
    assert.equal(third.statusLine, 'HTTP/1.1 200 OK')
    second.socket.destroy()
    third.socket.destroy()
  }).timeout(120_000)
})
