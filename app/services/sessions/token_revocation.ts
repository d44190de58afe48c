/*
| Revoking a user's Portal PATs (Authentication rule 5: password change or reset,
| role change, removal, invitation acceptance). Pass the transaction of the
| mutation so revocation commits with it.
*/
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import db from '@adonisjs/lucid/services/db'
import User from '#models/user'

export async function revokeAllTokensOf(user: { id: number }, trx?: TransactionClientContract) {
  return User.accessTokens.revokeAll(user.id, trx ?? db.connection())
}
