/*
| Password reset and change (portal-api.md › POST /auth/reset-password/new-password,
| PUT /portal/me/password; Authentication rules 8, 9). The reset link that comes
| before a reset: password_reset_link.ts.
|
| - A reset proof is single use: the first one used (or a password change) revokes
|   the others.
| - A successful reset or change revokes every PAT of the user and every reset proof.
*/
import { normalizeIdentity } from '#support/identity'
import { wrongCurrentPassword } from '#services/users/current_password'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { hashNewPassword, userHashingPlace, verifyPassword } from '#auth/password_hashing'
import ApiError from '#exceptions/api_error'
import User from '#models/user'
import { actorFor, audit } from '#services/audit/audit_trail'
import type { Actor, UserActor } from '#auth/actor'
import { revokeAllTokensOf } from '#services/sessions/token_revocation'
import { constantTimeEquals, sha256Hex } from '#support/one_time_proof'
import { AuditActions } from '#services/audit/actions'

export function resetTokenInvalid() {
  return new ApiError('RESET_TOKEN_INVALID', 'The password reset link is invalid or has expired.')
}

/**
 * Sets a new password with a reset proof; 400 RESET_TOKEN_INVALID for any bad proof.
 * `requester` is the (unauthenticated) caller; the audit record names the account.
 * The new password is hashed in the account's line once the proof matched, and
 * dropped while it waits when the caller has gone (`signal`): nothing is written then.
 */
export async function resetPassword(
  requester: Actor,
  input: { email: string; token: string; password: string },
  options: { signal?: AbortSignal } = {}
) {
  const tokenHash = sha256Hex(input.token)
  // One query whether or not the email is known: the account and the proof of that
  // hash among its proofs are read together, so an unknown email costs the same
  // work as a known one.
  const user = await User.query()
    .leftJoin('password_reset_tokens', (join) =>
      join
        .on('password_reset_tokens.user_id', 'users.id')
        .andOnVal('password_reset_tokens.token_hash', tokenHash)
    )
    .where('users.email', normalizeIdentity(input.email))
    .select(
      'users.*',
      'password_reset_tokens.id as reset_token_id',
      'password_reset_tokens.token_hash as reset_token_hash',
      'password_reset_tokens.expires_at as reset_token_expires_at'
    )
    .first()
  const record = user?.$extras.reset_token_id
    ? {
        id: user.$extras.reset_token_id as number,
        tokenHash: String(user.$extras.reset_token_hash),
        expiresAt: DateTime.fromJSDate(user.$extras.reset_token_expires_at as Date),
      }
    : null
  const now = DateTime.now()
  // Compared even without a record, against a hash of the same length.
  const matches = constantTimeEquals(record?.tokenHash ?? sha256Hex(''), tokenHash)
  if (!user || !record || !matches || record.expiresAt <= now) {
    throw resetTokenInvalid()
  }
  const passwordHash = await hashNewPassword(
    input.password,
    userHashingPlace(user.id, options.signal)
  )
  const consumed = await db.transaction(async (trx) => {
    // The account first, as a reset-link request locks it: two of its proofs used at
    // once then take turns instead of deadlocking, and the second finds its proof
    // revoked by the first.
    await trx.from('users').where('id', user.id).forUpdate().select('id').first()
    // Deleting the exact proof is what consumes it: of two racing requests only one deletes it.
    const deleted = await trx
      .from('password_reset_tokens')
      .where('id', record.id)
      .where('token_hash', tokenHash)
      .where('expires_at', '>', now.toJSDate())
      .delete()
    if (Number(deleted) !== 1) return false
    await replacePassword(trx, user, passwordHash, AuditActions.passwordReset, requester)
    return true
  })
  if (!consumed) throw resetTokenInvalid()
}

/** PUT /portal/me/password for the signed-in user: 422 on `current_password` when it does not match. */
export async function changePassword(
  actor: UserActor,
  input: { current_password: string; password: string },
  options: { signal?: AbortSignal } = {}
) {
  const user = { id: actor.userId, merchantId: actor.merchantId }
  // Verified before any lock or transaction (never hash while holding one), in the
  // user's line like every current-password check (dropped while it waits when the
  // caller has gone), then re-checked under the row lock: the hash must still be the
  // one verified. The new password is hashed only once the current one matched.
  const current = await db.from('users').where('id', user.id).select('password').first()
  const place = userHashingPlace(user.id, options.signal)
  if (!current || !(await verifyPassword(current.password, input.current_password, place))) {
    throw wrongCurrentPassword()
  }
  const passwordHash = await hashNewPassword(input.password, place)
  const changed = await db.transaction(async (trx) => {
    // Of two racing changes with the same current password, the second sees the
    // first one's new hash under the lock and is refused.
    const locked = await trx
      .from('users')
      .where('id', user.id)
      .forUpdate()
      .select('password')
      .first()
    if (!locked || locked.password !== current.password) return false
    await replacePassword(trx, user, passwordHash, AuditActions.passwordChange, actor)
    return true
  })
  if (!changed) throw wrongCurrentPassword()
}

/**
 * Stores a new password hash and, in the same transaction, removes every pending reset
 * proof (the other links mailed), revokes every token of the user (Authentication
 * rule 5) and audits it.
 */
async function replacePassword(
  trx: TransactionClientContract,
  user: { id: number; merchantId: number | null },
  passwordHash: string,
  action: typeof AuditActions.passwordReset | typeof AuditActions.passwordChange,
  requester: Actor
) {
  await trx
    .from('users')
    .where('id', user.id)
    .update({ password: passwordHash, updated_at: DateTime.now().toJSDate() })
  await trx.from('password_reset_tokens').where('user_id', user.id).delete()
  await revokeAllTokensOf(user, trx)
  await audit(trx, actorFor(requester, { userId: user.id, merchantId: user.merchantId }), {
    action,
    outcome: 'success',
    target: { type: 'user', id: user.id },
  })
}
