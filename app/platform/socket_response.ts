/*
| Whether a connection's current response has started. Node keeps that response as
| the socket's undocumented `_httpMessage`; its own `clientError` default reads it the
| same way before answering (app/platform/README.md).
*/
import type { Duplex } from 'node:stream'

/** Whether the response in flight on `socket` has sent its headers. */
export function responseStarted(socket: Duplex): boolean {
  const response: unknown = Reflect.get(socket, '_httpMessage')
  return (
    typeof response === 'object' &&
    response !== null &&
    Reflect.get(response, 'headersSent') === true
  )
}
