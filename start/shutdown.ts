/*
| Shutdown order. Terminating hooks run in reverse order of
| registration: the HTTP server's (registered when it starts listening) runs first and
| stops new requests; this one (a preload, registered before) then waits for the work
| started after responses — reset-link lookups, proof writes and mails — and only then
| do the providers shut down and the database pool close.
*/
import app from '@adonisjs/core/services/app'
import logger from '@adonisjs/core/services/logger'
import { backgroundWorkInFlight, settleBackgroundDeliveries } from '#services/mailer'

app.terminating(async () => {
  const pending = backgroundWorkInFlight()
  if (pending > 0) logger.info({ pending }, 'draining background work before shutdown')
  await settleBackgroundDeliveries()
})
