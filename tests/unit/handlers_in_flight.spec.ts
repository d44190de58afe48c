/*
| A shutdown waits for handlers whose clients have gone (app/http/handlers_in_flight.ts):
| the Portal's Node server (createPortalHttpServer) counts every handler until it
| settles, and closeAndSettle resolves only after the last one, although Node's own
| close has nothing left to wait for once the client's socket is gone.
*/
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { test } from '@japa/runner'
import { createPortalHttpServer } from '#http/client_error'
import { closeAndSettle, handlersRunning } from '#http/handlers_in_flight'

test.group('Handlers in flight', () => {
  test('a shutdown waits for the handler of a client that has gone', async ({ assert }) => {
    let finishHandler!: () => void
    const handlerMayFinish = new Promise<void>((resolve) => (finishHandler = resolve))
    let clientGone!: () => void
    const clientHasGone = new Promise<void>((resolve) => (clientGone = resolve))
    let handlerStarted!: () => void
    const started = new Promise<void>((resolve) => (handlerStarted = resolve))

    const server = createPortalHttpServer(async (request) => {
      request.socket.once('close', () => clientGone())
      handlerStarted()
      // Work that goes on after its client has left, as a login's statements do.
      await handlerMayFinish
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    const { port } = server.address() as AddressInfo

    const client = net.connect({ host: '127.0.0.1', port })
    client.on('error', () => {})
    client.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await started
    client.destroy()
    await clientHasGone
    assert.equal(handlersRunning(), 1)

    let settled = false
    const serverClosed = new Promise((resolve) => server.once('close', resolve))
    const closing = closeAndSettle(server).then(() => (settled = true))
    // Node's close is done at once: no connection is left to wait for.
    await serverClosed
    await nextTurn()
    await nextTurn()
    assert.isFalse(settled, 'the shutdown went on while a handler was running')

    finishHandler()
    await closing
    assert.isTrue(settled)
    assert.equal(handlersRunning(), 0)
  })
})
