/*
| Profile edits and email change (portal-api.md › Profile, the Email change state
| table, Authentication rules 5 and 9).
|
| The pending change lives on the user row (migration 0100). Issuing proofs gives
| the change a new verification id (the signed link's path segment), a new OTP
| (stored as a keyed hash), a new link proof (stored as SHA-256), a zero wrong-OTP
| counter and a 15-minute expiry, so every earlier code and link stops working.
| An expired pending change is no change at all: it is not shown, resent or
| verified. Every decision runs under a row lock on the user, so racing requests
| see each other's outcome (one verification wins; wrong codes are counted exactly).
*/
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { signedUrlFor } from '@adonisjs/core/services/url_builder'
import type { HttpContext } from '@adonisjs/core/http'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import ApiError from '#exceptions/api_error'
import User, { roleName } from '#models/user'
import Merchant from '#models/merchant'
import AuditLogService from '#services/audit_log_service'
import { appUrl } from '#config/app'
import {
  constantTimeEquals,
  keyedHash,
  newOtp,
  newProof,
  sha256Hex,
} from '#services/one_time_proof'
import { requirePortalOrigin } from '#services/portal_url'
import { deliver } from '#services/mailer'
import EmailVerificationMail from '#mails/email_verification_mail'

export const EMAIL_CHANGE_MINUTES = 15
export const MAX_WRONG_OTPS = 5
/** Path of the signed verification link on {web_url} (outside /api/v1). */
export const EMAIL_VERIFICATION_PATH = '/portal/profile/email/verify/:verification'
export const EMAIL_VERIFICATION_PURPOSE = 'email_change_verification'

// The framework's signed URL builder (signature by APP_KEY), used with a route
// pattern: the generated route types of this app do not list named routes.
const signedUrlForPattern = signedUrlFor as unknown as (
  pattern: string,
  params: Record<string, string>,
  options: {
    disableRouteLookup: true
    prefixUrl: string
    qs: Record<string, string>
    expiresIn: string
    purpose: string
  }
) => string

const EMAIL_TAKEN = 'The email has already been taken.'

function otpHash(verificationId: string, otp: string) {
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

/**
 * Whether `email` (lowercase) is free for `userId`: no other user has it as email
 * or username, or as an unexpired pending email.
 */
export async function isEmailAvailable(
  email: string,
  userId: number,
  client: TransactionClientContract | typeof db = db
) {
  const now = DateTime.now().toJSDate()
  const taken = await client
    .from('users')
    .whereNot('id', userId)
    .where((query) =>
      query
        .whereRaw('lower(email) = ?', [email])
        .orWhereRaw('lower(username) = ?', [email])
        .orWhere((pending) =>
          pending
            .whereRaw('lower(pending_email) = ?', [email])
            .where('pending_email_expires_at', '>', now)
        )
    )
    .select('id')
    .first()
  return !taken
}

function isUniqueViolation(error: unknown) {
  return (error as { code?: string } | null)?.code === '23505'
}

function clearPending(user: User) {
  user.pendingEmail = null
  user.pendingEmailExpiresAt = null
  user.pendingEmailVerificationId = null
  user.pendingEmailOtpHash = null
  user.pendingEmailProofHash = null
  user.pendingEmailFailedAttempts = 0
}

/** New proofs for `email` on `user` (unsaved); returns the mail to send after commit. */
function issueProofs(user: User, email: string) {
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
  const link = signedUrlForPattern(
    EMAIL_VERIFICATION_PATH,
    { verification: verificationId },
    {
      disableRouteLookup: true,
      prefixUrl: appUrl,
      qs: { proof, expires: String(Math.floor(expiresAt.toSeconds())) },
      expiresIn: `${EMAIL_CHANGE_MINUTES}m`,
      purpose: EMAIL_VERIFICATION_PURPOSE,
    }
  )
  return new EmailVerificationMail(email, otp, link, EMAIL_CHANGE_MINUTES)
}

/** Frees `email` from other users' expired pending changes (the unique index covers all rows). */
async function releaseExpiredPendingEmail(trx: TransactionClientContract, email: string) {
  await trx
    .from('users')
    .whereRaw('lower(pending_email) = ?', [email])
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

export interface ProfileChanges {
  first_name?: string
  last_name?: string
  email?: string
}

/**
 * PATCH /portal/me. Names are applied as given; `email` (lowercase) starts,
 * replaces or cancels an email change. Nothing changes when the email is taken
 * (422) or the Portal URL is unusable (503). The verification mail is sent after
 * commit; its failure leaves the pending change saved.
 */
export async function updateProfile(userId: number, changes: ProfileChanges) {
  const outcome = await db
    .transaction(async (trx) => {
      const user = await User.query({ client: trx }).where('id', userId).forUpdate().firstOrFail()
      let mail: EmailVerificationMail | null = null
      if (changes.first_name !== undefined) user.firstName = changes.first_name
      if (changes.last_name !== undefined) user.lastName = changes.last_name
      if (changes.email !== undefined) {
        const email = changes.email
        const live = hasLivePendingEmail(user)
        if (email === user.email.toLowerCase()) {
          // The current address: cancels any pending change.
          clearPending(user)
        } else if (live && email === user.pendingEmail) {
          // The address already pending: kept as is (resend issues new proofs).
        } else {
          if (!(await isEmailAvailable(email, user.id, trx))) {
            return { kind: 'taken' as const }
          }
          requirePortalOrigin()
          await releaseExpiredPendingEmail(trx, email)
          mail = issueProofs(user, email)
        }
      }
      await user.useTransaction(trx).save()
      return { kind: 'saved' as const, user, mail }
    })
    .catch((error) => {
      if (isUniqueViolation(error)) return { kind: 'taken' as const }
      throw error
    })
  if (outcome.kind === 'taken') throw ApiError.field('email', EMAIL_TAKEN)
  const sent = outcome.mail ? await deliver(outcome.mail) : null
  return { user: outcome.user, emailChangeStarted: outcome.mail !== null, sent }
}

/** POST /portal/me/email/resend: new proofs for the live pending change. */
export async function resendEmailVerification(userId: number) {
  requirePortalOrigin()
  const outcome = await db.transaction(async (trx) => {
    const user = await User.query({ client: trx }).where('id', userId).forUpdate().firstOrFail()
    if (!hasLivePendingEmail(user)) return { kind: 'none' as const }
    const email = user.pendingEmail!
    if (!(await isEmailAvailable(email, user.id, trx))) return { kind: 'taken' as const }
    const mail = issueProofs(user, email)
    await user.useTransaction(trx).save()
    return { kind: 'issued' as const, mail }
  })
  if (outcome.kind === 'none') {
    throw ApiError.field('email', 'There is no pending email change to verify.')
  }
  if (outcome.kind === 'taken') {
    throw ApiError.field('email', 'The pending email address is no longer available.')
  }
  return deliver(outcome.mail)
}

type Swap = { kind: 'verified'; user: User } | { kind: 'invalid' } | { kind: 'blocked' }

/** Replaces the login email by the pending one (caller holds the row lock). */
async function swapEmail(trx: TransactionClientContract, user: User, ctx?: HttpContext) {
  if (!(await isEmailAvailable(user.pendingEmail!, user.id, trx))) return false
  user.email = user.pendingEmail!
  user.emailVerifiedAt = DateTime.now()
  clearPending(user)
  await user.useTransaction(trx).save()
  await AuditLogService.record(
    trx,
    {
      action: 'user.email.change',
      outcome: 'success',
      actorUserId: user.id,
      merchantId: user.merchantId,
      targetType: 'user',
      targetId: user.id,
    },
    ctx
  )
  return true
}

function catchConflict(error: unknown): { kind: 'invalid' } {
  if (isUniqueViolation(error)) return { kind: 'invalid' }
  throw error
}

/**
 * POST /portal/me/email/verify. Wrong codes are counted; from the fifth on the
 * change is blocked (429) until a resend. PATs are kept.
 */
export async function verifyEmailOtp(userId: number, otp: string, ctx?: HttpContext) {
  type Outcome = Swap | { kind: 'wrong' }
  const outcome: Outcome = await db
    .transaction(async (trx): Promise<Outcome> => {
      const user = await User.query({ client: trx }).where('id', userId).forUpdate().firstOrFail()
      if (!hasLivePendingEmail(user)) return { kind: 'invalid' }
      if (user.pendingEmailFailedAttempts >= MAX_WRONG_OTPS) return { kind: 'blocked' }
      if (
        !constantTimeEquals(
          user.pendingEmailOtpHash,
          otpHash(user.pendingEmailVerificationId!, otp)
        )
      ) {
        user.pendingEmailFailedAttempts += 1
        await user.useTransaction(trx).save()
        return { kind: 'wrong' }
      }
      return (await swapEmail(trx, user, ctx)) ? { kind: 'verified', user } : { kind: 'invalid' }
    })
    .catch(catchConflict)
  if (outcome.kind === 'blocked') {
    // Blocked until a resend; Retry-After is required on every 429.
    throw new ApiError(
      429,
      'RATE_LIMITED',
      'Too many incorrect codes. Request a new code to try again.',
      undefined,
      { 'Retry-After': '60' }
    )
  }
  if (outcome.kind === 'wrong' || outcome.kind === 'invalid') {
    throw ApiError.field('otp', 'The verification code is invalid or has expired.')
  }
  return outcome.user
}

/**
 * GET {web_url}/portal/profile/email/verify/{verification}, after its signature
 * was checked: `verified` or `invalid` (stale, consumed, superseded, blocked,
 * ineligible account or address taken meanwhile).
 */
export async function verifyEmailLink(
  verificationId: string,
  proof: string,
  ctx?: HttpContext
): Promise<'verified' | 'invalid'> {
  const outcome = await db
    .transaction(async (trx): Promise<Swap> => {
      const user = await User.query({ client: trx })
        .where('pending_email_verification_id', verificationId)
        .forUpdate()
        .first()
      if (
        !user ||
        !hasLivePendingEmail(user) ||
        user.pendingEmailFailedAttempts >= MAX_WRONG_OTPS ||
        !constantTimeEquals(user.pendingEmailProofHash, sha256Hex(proof))
      ) {
        return { kind: 'invalid' }
      }
      const merchant = user.merchantId
        ? await Merchant.find(user.merchantId, { client: trx })
        : null
      if (!user.isActive || !roleName(user.role) || !merchant?.isActive) return { kind: 'invalid' }
      return (await swapEmail(trx, user, ctx)) ? { kind: 'verified', user } : { kind: 'invalid' }
    })
    .catch(catchConflict)
  return outcome.kind === 'verified' ? 'verified' : 'invalid'
}
