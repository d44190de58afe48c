/*
| Sending the service's mails (portal-api.md › Events: "Mail is sent after the
| database commit; a send failure does not roll back").
|
| One rule for every mail: a send never throws. A failure is logged (mail class,
| transport, error kind; never recipients' secrets or message bodies) and reported
| as `false`, so a caller can say `sent: false` or ignore it, and the database
| change it follows stays committed.
|
|   await deliver(new InvitationMail(...))          // after the transaction; true/false
|   inBackground('label', afterThisTurn().then(work))  // work after the response path
|   await settleBackgroundDeliveries()              // tests, shutdown: wait for those
*/
import type { BaseMail } from '@adonisjs/mail'
import mailManager from '@adonisjs/mail/services/main'
import logger from '@adonisjs/core/services/logger'
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { configuredMailer, type MailerName } from '#config/mail'
import { recordMailFailure } from '#support/operator_metrics'

const inFlight = new Set<Promise<boolean>>()

const tracer = trace.getTracer('merchant-portal')

/**
 * The send as a span of the request's trace (a no-op unless tracing is on):
 * which mail and transport, and whether it failed; never recipients or content.
 */
function sendInSpan(message: BaseMail, transport: MailerName, send: () => Promise<unknown>) {
  const attributes = { 'mail.class': message.constructor.name, 'mail.transport': transport }
  return tracer.startActiveSpan(
    'mail.send',
    { kind: SpanKind.CLIENT, attributes },
    async (span) => {
      try {
        return await send()
      } catch (error) {
        span.setAttribute('error.type', (error as Error | undefined)?.name ?? 'Error')
        span.setStatus({ code: SpanStatusCode.ERROR })
        throw error
      } finally {
        span.end()
      }
    }
  )
}

/** Sends `message` with the configured transport now. Resolves to whether it was sent; never rejects. */
export async function deliver(message: BaseMail): Promise<boolean> {
  const transport = configuredMailer()
  try {
    await sendInSpan(message, transport, () => mailManager.use(transport).send(message))
    return true
  } catch (error) {
    const err = (error ?? {}) as { name?: string; code?: string; responseCode?: number }
    recordMailFailure(message.constructor.name, transport)
    logger.error(
      {
        mail: message.constructor.name,
        transport,
        err: { name: err.name, code: err.code, responseCode: err.responseCode },
      },
      'mail delivery failed'
    )
    return false
  }
}

/** Resolves once the current turn (a request's response path) has run. */
export function afterThisTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve))
}

/**
 * Follows `work`, started without making the caller wait (after the response path:
 * afterThisTurn): the HTTP response depends neither on its duration nor on its
 * outcome (a failure is logged under `label`, never thrown), and shutdown waits for it.
 */
export function inBackground(label: string, work: Promise<unknown>): void {
  const running = work.then(
    () => true,
    (error) => {
      const err = (error ?? {}) as { name?: string; code?: string }
      logger.error(
        { work: label, err: { name: err.name, code: err.code } },
        'background work failed'
      )
      return false
    }
  )
  inFlight.add(running)
  running.finally(() => inFlight.delete(running))
}

/** How many background tasks are still running. */
export function backgroundWorkInFlight() {
  return inFlight.size
}

/** Waits until every background delivery started so far has finished. */
export async function settleBackgroundDeliveries() {
  while (inFlight.size > 0) await Promise.all([...inFlight])
}
