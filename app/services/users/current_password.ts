/*
| The current-password check of every operation that asks for one (machine clients,
| credential consumption, password change, invitation acceptance by an existing
| account; integration keys alike). The hash is read afresh, never from a user loaded
| earlier in the request, and before any transaction (never hash while holding a lock).
| The check waits in the user's line of the hash queue (#auth/password_hashing), so
| one user's checks never push other users' back; when `signal` aborts (the caller has
| gone) while it waits, it is dropped (HashAbandoned) and nothing is written.
*/
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import type { Actor } from '#auth/actor'
import { audit, type AuditTarget } from '#services/audit/audit_trail'
import { userHashingPlace, verifyPassword } from '#auth/password_hashing'

export const wrongCurrentPassword = () =>
  ApiError.field('current_password', 'The current password is incorrect.')

/** Whether `password` is the user's current password. */
export async function currentPasswordMatches(
  userId: number,
  password: string,
  signal?: AbortSignal
): Promise<boolean> {
  const row: { password: string } | null = await db
    .from('users')
    .where('id', userId)
    .select('password')
    .first()
  if (row === null) return false
  return verifyPassword(row.password, password, userHashingPlace(userId, signal))
}

/**
 * 422 on `current_password` unless `password` is the actor's current one; a
 * mismatch is audited as a failure of `action` on `target` (committed on its own).
 */
export async function requireCurrentPassword(
  actor: Actor,
  password: string,
  failure: { action: string; target: AuditTarget },
  signal?: AbortSignal
): Promise<void> {
  if (actor.userId !== null && (await currentPasswordMatches(actor.userId, password, signal))) {
    return
  }
  await audit(undefined, actor, {
    action: failure.action,
    outcome: 'failure',
    target: failure.target,
    metadata: { failure: 'current_password_incorrect' },
  })
  throw wrongCurrentPassword()
}
