/*
| Profile edits and email change (portal-api.md › Profile, the Email change state
| table, Authentication rules 5 and 9): the operations that start, resend and verify
| a change. The pending change itself (its proofs, expiry and clearing) is in
| pending_email.ts. Every decision runs under a row lock on the user, so racing
| requests see each other's outcome (one verification wins; wrong codes are counted
| exactly).
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import ApiError from '#exceptions/api_error'
import { isUniqueViolation } from '#support/database_errors'
import User, { roleName } from '#models/user'
import Merchant from '#models/merchant'
import { actorFor, audit } from '#services/audit/audit_trail'
import type { Actor, UserActor } from '#auth/actor'
import { constantTimeEquals, sha256Hex } from '#support/one_time_proof'
import { requirePortalOrigin } from '#support/portal_url'
import { identityTaken } from '#services/users/identity_availability'
import { deliver } from '#services/mailer'
import type EmailVerificationMail from '#mails/email_verification_mail'
import {
  MAX_WRONG_OTPS,
  clearPending,
  hasLivePendingEmail,
  issueProofs,
  otpHash,
  releaseExpiredPendingEmail,
} from '#services/profile/pending_email'

/** The signed link's purpose, which its controller checks. */
export { EMAIL_VERIFICATION_PURPOSE } from '#services/profile/pending_email'

const EMAIL_TAKEN = 'The email has already been taken.'

export interface ProfileChanges {
  first_name?: string
  last_name?: string
  email?: string
}

/** The signed-in user's row, locked for the rest of `trx`. */
function lockOwnUser(trx: TransactionClientContract, actor: UserActor) {
  return User.query({ client: trx }).where('id', actor.userId).forUpdate().firstOrFail()
}

/**
 * PATCH /portal/me for the signed-in user. Names are applied as given; `email`
 * (lowercase) starts, replaces or cancels an email change. Nothing changes when the
 * email is taken (422) or the Portal URL is unusable (503). The verification mail is
 * sent after commit; its failure leaves the pending change saved.
 */
export async function updateProfile(actor: UserActor, changes: ProfileChanges) {
  const outcome = await db
    .transaction(async (trx) => {
      const user = await lockOwnUser(trx, actor)
      let mail: EmailVerificationMail | null = null
      if (changes.first_name !== undefined) user.firstName = changes.first_name
      if (changes.last_name !== undefined) user.lastName = changes.last_name
      if (changes.email !== undefined) {
        const email = changes.email
        const live = hasLivePendingEmail(user)
        if (email === user.email) {
          // The current address: cancels any pending change.
          clearPending(user)
        } else if (live && email === user.pendingEmail) {
          // The address already pending: kept as is (resend issues new proofs).
        } else {
          if (await identityTaken(email, { exceptUserId: user.id, client: trx })) {
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
export async function resendEmailVerification(actor: UserActor) {
  requirePortalOrigin()
  const outcome = await db.transaction(async (trx) => {
    const user = await lockOwnUser(trx, actor)
    if (!hasLivePendingEmail(user)) return { kind: 'none' as const }
    const email = user.pendingEmail!
    if (await identityTaken(email, { exceptUserId: user.id, client: trx }))
      return { kind: 'taken' as const }
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
async function swapEmail(trx: TransactionClientContract, user: User, requester: Actor) {
  if (await identityTaken(user.pendingEmail!, { exceptUserId: user.id, client: trx })) {
    return false
  }
  user.email = user.pendingEmail!
  user.emailVerifiedAt = DateTime.now()
  clearPending(user)
  await user.useTransaction(trx).save()
  await audit(trx, actorFor(requester, { userId: user.id, merchantId: user.merchantId }), {
    action: 'user.email.change',
    outcome: 'success',
    target: { type: 'user', id: user.id },
  })
  return true
}

function catchConflict(error: unknown): { kind: 'invalid' } {
  if (isUniqueViolation(error)) return { kind: 'invalid' }
  throw error
}

/**
 * POST /portal/me/email/verify for the signed-in user. Wrong codes are counted; from
 * the fifth on the change is blocked (429) until a resend. PATs are kept.
 */
export async function verifyEmailOtp(actor: UserActor, input: { otp: string }) {
  type Outcome = Swap | { kind: 'wrong' }
  const outcome: Outcome = await db
    .transaction(async (trx): Promise<Outcome> => {
      const user = await lockOwnUser(trx, actor)
      if (!hasLivePendingEmail(user)) return { kind: 'invalid' }
      if (user.pendingEmailFailedAttempts >= MAX_WRONG_OTPS) return { kind: 'blocked' }
      if (
        !constantTimeEquals(
          user.pendingEmailOtpHash,
          otpHash(user.pendingEmailVerificationId!, input.otp)
        )
      ) {
        user.pendingEmailFailedAttempts += 1
        await user.useTransaction(trx).save()
        return { kind: 'wrong' }
      }
      return (await swapEmail(trx, user, actor)) ? { kind: 'verified', user } : { kind: 'invalid' }
    })
    .catch(catchConflict)
  if (outcome.kind === 'blocked') {
    // Blocked until a resend.
    throw ApiError.rateLimited(60, 'Too many incorrect codes. Request a new code to try again.')
  }
  if (outcome.kind === 'wrong' || outcome.kind === 'invalid') {
    throw ApiError.field('otp', 'The verification code is invalid or has expired.')
  }
  return outcome.user
}

/**
 * GET {web_url}/portal/profile/email/verify/{verification}, after its signature
 * was checked: `verified` or `invalid` (stale, consumed, superseded, blocked,
 * ineligible account or address taken meanwhile). `requester` is the caller of the
 * link (no PAT); the audit record names the user the link acts for.
 */
export async function verifyEmailLink(
  requester: Actor,
  input: { verification: string; proof: string }
): Promise<'verified' | 'invalid'> {
  const outcome = await db
    .transaction(async (trx): Promise<Swap> => {
      const user = await User.query({ client: trx })
        .where('pending_email_verification_id', input.verification)
        .forUpdate()
        .first()
      if (
        !user ||
        !hasLivePendingEmail(user) ||
        user.pendingEmailFailedAttempts >= MAX_WRONG_OTPS ||
        !constantTimeEquals(user.pendingEmailProofHash, sha256Hex(input.proof))
      ) {
        return { kind: 'invalid' }
      }
      const merchant = user.merchantId
        ? await Merchant.find(user.merchantId, { client: trx })
        : null
      if (!user.isActive || !roleName(user.role) || !merchant?.isActive) return { kind: 'invalid' }
      return (await swapEmail(trx, user, requester))
        ? { kind: 'verified', user }
        : { kind: 'invalid' }
    })
    .catch(catchConflict)
  return outcome.kind === 'verified' ? 'verified' : 'invalid'
}
