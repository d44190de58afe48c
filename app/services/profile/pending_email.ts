/*
| The pending email change of a user (portal-api.md › Profile, the Email change state
| table, Authentication rule 9): its proofs, its expiry and its clearing. The
| operations that start, resend and verify a change are in email_change.ts.
|
| The pending change lives on the user row (migration 0100). Issuing proofs gives
| the change a new verification id (the signed link's path segment), a new OTP
| (stored as a keyed hash), a new link proof (stored as SHA-256), a zero wrong-OTP
| counter and a 15-minute expiry, so every earlier code and link stops working.
| An expired pending change is no change at all: it is not shown, resent or
| verified.
*/
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import { signedUrlFor } from '@adonisjs/core/services/url_builder'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type User from '#models/user'
import { appUrl } from '#config/app'
import { keyedHash, newOtp, newProof, sha256Hex } from '#support/one_time_proof'
import EmailVerificationMail from '#mails/email_verification_mail'

export const EMAIL_CHANGE_MINUTES = 15
export const MAX_WRONG_OTPS = 5
/** Name of the signed verification link's route on {web_url} (outside /api/v1). */
export const EMAIL_VERIFICATION_ROUTE = 'profile.email.verify_link'
export const EMAIL_VERIFICATION_PURPOSE = 'email_change_verification'

export function otpHash(verificationId: string, otp: string) {
  return keyedHash(`email-change-otp:${verificationId}`, otp)
}

/** Whether `user` has a pending change that has not expired. */
export function hasLivePendingEmail(user: User, now = DateTime.now()): boolean {
  return (
    user.pendingEmail !== null &&
    user.pendingEmailExpiresAt !== null &&
    user.pendingEmailExpiresAt > now
  )
}

export function clearPending(user: User) {
  user.pendingEmail = null
  user.pendingEmailExpiresAt = null
  user.pendingEmailVerificationId = null
  user.pendingEmailOtpHash = null
  user.pendingEmailProofHash = null
  user.pendingEmailFailedAttempts = 0
}

/** New proofs for `email` on `user` (unsaved); returns the mail to send after commit. */
export function issueProofs(user: User, email: string) {
  const now = DateTime.now()
  const expiresAt = now.plus({ minutes: EMAIL_CHANGE_MINUTES })
  const verificationId = randomUUID()
  const otp = newOtp()
  const proof = newProof()
  user.pendingEmail = email
  user.pendingEmailExpiresAt = expiresAt
  user.pendingEmailVerificationId = verificationId
  user.pendingEmailOtpHash = otpHash(verificationId, otp)
  user.pendingEmailProofHash = sha256Hex(proof)
  user.pendingEmailFailedAttempts = 0
  const link = signedUrlFor(
    EMAIL_VERIFICATION_ROUTE,
    { verification: verificationId },
    {
      prefixUrl: appUrl,
      qs: { proof, expires: String(Math.floor(expiresAt.toSeconds())) },
      expiresIn: `${EMAIL_CHANGE_MINUTES}m`,
      purpose: EMAIL_VERIFICATION_PURPOSE,
    }
  )
  return new EmailVerificationMail(email, otp, link, EMAIL_CHANGE_MINUTES)
}

/** Frees `email` from other users' expired pending changes (the unique index covers all rows). */
export async function releaseExpiredPendingEmail(trx: TransactionClientContract, email: string) {
  await trx
    .from('users')
    .where('pending_email', email)
    .where('pending_email_expires_at', '<=', DateTime.now().toJSDate())
    .update({
      pending_email: null,
      pending_email_expires_at: null,
      pending_email_verification_id: null,
      pending_email_otp_hash: null,
      pending_email_proof_hash: null,
      pending_email_failed_attempts: 0,
    })
}
