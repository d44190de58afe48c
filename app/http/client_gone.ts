/*
| A request's AbortSignal for operations that take one: it aborts when the connection
| closes before the response has been sent (the client gave up or went away), so that
| work queued for nobody is dropped. A response sent in full never aborts it.
*/
import type { HttpContext } from '@adonisjs/core/http'

export function clientGoneSignal(ctx: HttpContext): AbortSignal {
  const response = ctx.response.response
  const controller = new AbortController()
  const gone = () => !response.writableFinished && controller.abort()
  if (response.closed) gone()
  else response.once('close', gone)
  return controller.signal
}
