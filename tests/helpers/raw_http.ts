/*
| A request sent as raw bytes over a socket of its own (an HTTP client would refuse to
| send what the hardening tests send, or would finish a request they leave unfinished),
| and the answer read until the server closes the connection.
*/
import net from 'node:net'
import { REQUEST_MS } from '#tests/helpers/server_process'

export interface RawResponse {
  statusLine: string
  headers: Record<string, string>
  body: Buffer
}

/**
 * Sends `request` as is (to the test server unless `to` names another) and reads the
 * answer until the server closes the connection, within REQUEST_MS.
 */
export async function sendRaw(
  request: Buffer,
  to: { host?: string; port: number } = { host: process.env.HOST, port: Number(process.env.PORT) }
): Promise<RawResponse> {
  const socket = net.connect({ host: to.host ?? '127.0.0.1', port: to.port })
  const chunks: Buffer[] = []
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`the server did not close the connection within ${REQUEST_MS} ms`))
    }, REQUEST_MS)
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.once('close', () => {
      clearTimeout(timer)
      resolve()
    })
    // The server may close while the rest of an oversized request is still being sent.
    socket.on('error', () => {})
    socket.once('connect', () => socket.write(request))
  })
  const raw = Buffer.concat(chunks)
  const end = raw.indexOf('\r\n\r\n')
  if (end < 0) throw new Error(`no complete response head: ${JSON.stringify(raw.toString())}`)
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { statusLine, headers, body: raw.subarray(end + 4) }
}
