/*
| Pointing the service's mail at a test's own transport settings (an SMTP sink, a
| closed port, a slow relay): the transports are built from the environment when
| first used, so they are closed here and again when the test is done.
*/
import mail from '@adonisjs/mail/services/main'
import { overrideEnv, type EnvValue } from '#tests/helpers/env'
import { settleBackgroundDeliveries } from '#services/mailer'

/** Applies `settings` for one test; returns the teardown (for `cleanup`). */
export async function useMailTransport(settings: Record<string, EnvValue>) {
  const restoreEnv = overrideEnv(settings)
  await mail.closeAll()
  return async () => {
    await settleBackgroundDeliveries()
    await mail.closeAll()
    restoreEnv()
  }
}
