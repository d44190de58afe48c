/*
| The functional suite's own server (HOST and PORT, started by tests/bootstrap.ts), for
| requests the api client cannot send: exact bytes, a body cut off, a fetch of a path.
*/
import net from 'node:net'

/** The origin the test server is reached at (.env.test: HOST=127.0.0.1). */
export const serverOrigin = () => `http://${process.env.HOST}:${process.env.PORT}`

/** A TCP connection to the test server, once connected. */
export async function connectToServer() {
  const socket = net.connect({ host: process.env.HOST, port: Number(process.env.PORT) })
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return socket
}

/**
 * Writes a request head that carries `Expect: 100-continue` and resolves once the server
 * answers 100 Continue: it has taken the request and waits for the body.
 */
export async function writeHeadUntilContinued(socket: net.Socket, head: string) {
  const continued = new Promise<void>((resolve) =>
    socket.once('data', (chunk) => {
      if (chunk.toString().startsWith('HTTP/1.1 100')) resolve()
    })
  )
  socket.write(head)
  await continued
}
