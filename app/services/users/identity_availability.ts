/*
| Usernames and emails share one namespace (login matches either), and an address
| another account is verifying (an unexpired pending email change) is reserved. The
| one query that decides whether an identity is free, for operator-created users,
| invitations and email changes alike. Values are compared as stored, normalized
| (app/support/identity.ts).
*/
import { DateTime } from 'luxon'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import User from '#models/user'
import { normalizeIdentity } from '#support/identity'

/** Whether an account other than `exceptUserId` holds `identity` as username, email or live pending email. */
export async function identityTaken(
  identity: string,
  options: { exceptUserId?: number; client?: QueryClientContract } = {}
): Promise<boolean> {
  const value = normalizeIdentity(identity)
  const query = User.query({ client: options.client }).where((taken) =>
    taken
      .where('username_normalized', value)
      .orWhere('email', value)
      .orWhere((pending) =>
        pending
          .where('pending_email', value)
          .where('pending_email_expires_at', '>', DateTime.now().toJSDate())
      )
  )
  if (options.exceptUserId !== undefined) query.whereNot('id', options.exceptUserId)
  return (await query.select('id').first()) !== null
}
