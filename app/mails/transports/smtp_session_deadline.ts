/*
| One deadline for a whole SMTP session (connect, greeting, commands, the message).
|
| nodemailer's own timeouts are per phase: 10 s to connect, 10 s for the greeting and
| 20 s of silence. A relay that answers slowly, or trickles a reply that never ends,
| keeps each of them satisfied and holds the send (and an invitation request that
| awaits it) for as long as it likes. The transport's `getSocket` hook hands each
| session a socket that is destroyed when SMTP_SEND_TIMEOUT_SECONDS have passed
| since it was opened: the send then fails like any other (`deliver` → false).
*/
import { connect, type Socket } from 'node:net'

/** Why a session's socket was destroyed: its deadline passed (nodemailer sets its `code`). */
export class SmtpDeadlineError extends Error {
  constructor(seconds: number) {
    super(`The SMTP session took longer than ${seconds} s`)
    this.name = 'SmtpDeadlineError'
  }
}

type SocketCallback = (error: Error | null, socketOptions: { connection: Socket }) => void

/**
 * nodemailer's `getSocket` for `host:port`: a connecting socket (nodemailer takes it
 * as an opened `connection` and upgrades it to TLS itself when `secure` is set)
 * destroyed after `seconds`.
 */
export function socketsWithDeadline(host: string, port: number, seconds: number) {
  return (_options: unknown, callback: SocketCallback) => {
    const socket = connect({ host, port })
    // nodemailer listens for errors once it takes the socket; this keeps an error
    // between its listeners (during its TLS upgrade, say) from being uncaught.
    socket.on('error', () => {})
    const deadline = setTimeout(
      () => socket.destroy(new SmtpDeadlineError(seconds)),
      seconds * 1000
    )
    deadline.unref()
    socket.once('close', () => clearTimeout(deadline))
    callback(null, { connection: socket })
  }
}
