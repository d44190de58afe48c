/*
| A bound on the connections one server process holds open: MAX_CONNECTIONS (10,000).
|
| Each connection is bounded in time (REQUEST_TIMEOUT_SECONDS, the keep-alive timeout)
| and in bytes, but nothing bounded their number: a client opening connections faster
| than those deadlines close them held the process's memory (about 7 KB an idle one,
| 18 KB one kept alive after a request, measured on the production build) and its file
| descriptors, which the database pool, uploads and image children need as well.
|
| Past the bound Node closes each new connection as soon as it is accepted, without
| reading it ('drop'): answering it, even 503, would cost the reading and parsing the
| bound is there to save. The client sees the connection closed and retries, as after
| any refused connection; the drops are counted for operators.
*/
import type { Server } from 'node:http'
import settings from '#config/settings'
import { recordDroppedConnection } from '#support/operator_metrics'

let cappedServer: Server | undefined

/** Caps `server` at MAX_CONNECTIONS open connections, and counts the ones it drops. */
export function capConnections(server: Server) {
  server.maxConnections = settings.maxConnections()
  server.on('drop', recordDroppedConnection)
  cappedServer = server
  return server
}

/** The capped server's open connections and bound; undefined in a process without one. */
export async function connectionCounts(): Promise<{ open: number; max: number } | undefined> {
  const server = cappedServer
  if (!server?.listening) return undefined
  const open = await new Promise<number>((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count)))
  )
  return { open, max: server.maxConnections ?? Number.POSITIVE_INFINITY }
}
