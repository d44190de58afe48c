/*
| Helpers of the profile, password and mail tests: configuration switched per test
| (PORTAL_URL, mail transport), the mail fake, and reading the mails sent.
*/
import mail from '@adonisjs/mail/services/main'
import type { ApiClient } from '@japa/api-client'
import type { FakeMailer } from '@adonisjs/mail'
import EmailVerificationMail from '#mails/email_verification_mail'
import PasswordResetMail from '#mails/password_reset_mail'
import { settleBackgroundDeliveries } from '#services/mailer'
import { PORTAL_ORIGIN } from '#tests/helpers/portal'
import { setEnv } from '#tests/helpers/env'
import { raiseLimits } from '#tests/helpers/limits'
import { route } from '#tests/helpers/routes'

/**
 * For one test: PORTAL_URL = PORTAL_ORIGIN, the mail fake, and limits raised a
 * hundredfold (tests of a limit call `realLimits()`). Undo with `restore`.
 */
export function profileTestSetup() {
  const restoreEnv = setEnv('PORTAL_URL', PORTAL_ORIGIN)
  const restoreLimits = raiseLimits()
  const fake = mail.fake()
  return {
    fake,
    restore: async () => {
      await settleBackgroundDeliveries()
      mail.restore()
      restoreEnv()
      restoreLimits()
    },
  }
}

export function sentVerificationMails(fake: FakeMailer) {
  return fake.mails.sent((sent) => sent instanceof EmailVerificationMail) as EmailVerificationMail[]
}

export function lastVerificationMail(fake: FakeMailer) {
  const mails = sentVerificationMails(fake)
  if (mails.length === 0) throw new Error('no verification mail was sent')
  return mails[mails.length - 1]
}

export async function sentResetMails(fake: FakeMailer) {
  await settleBackgroundDeliveries()
  return fake.mails.sent((sent) => sent instanceof PasswordResetMail) as PasswordResetMail[]
}

/** The path and query of an absolute link (what a browser requests on this server). */
export function pathOf(link: string) {
  const url = new URL(link)
  return `${url.pathname}${url.search}`
}

/** PATCHes the email of the signed-in member and returns the mailed OTP and link. */
export async function startEmailChange(
  client: ApiClient,
  fake: FakeMailer,
  bearer: string,
  email: string
) {
  const response = await client
    .patch(route('profile.update'))
    .header('Authorization', bearer)
    .json({ email })
  if (response.status() !== 200) {
    throw new Error(`email change refused: ${response.status()} ${JSON.stringify(response.body())}`)
  }
  const sent = lastVerificationMail(fake)
  return { response, otp: sent.otp, link: sent.verificationLink, mail: sent }
}

/** A six-digit code different from `otp`. */
export function wrongOtp(otp: string) {
  return String((Number(otp) + 1) % 1_000_000).padStart(6, '0')
}
