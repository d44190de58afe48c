import { BaseSchema } from '@adonisjs/lucid/schema'
import { normalizeIdentity } from '#support/identity'

/**
 * Identities are compared as stored, normalized by app/support/identity.ts:
 * `users.email`, `users.pending_email` and `team_invitations.email` hold the
 * normalized address, and `users.username_normalized` the normalized username (the
 * username keeps its spelling for display). The unique indexes cover the stored
 * values instead of PostgreSQL's `lower()`.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.alterTable('users', (table) => {
      table.string('username_normalized', 255).nullable()
    })
    this.defer(async (db) => {
      const users = await db.from('users').select('id', 'username', 'email', 'pending_email')
      for (const user of users) {
        await db
          .from('users')
          .where('id', user.id)
          .update({
            username_normalized: normalizeIdentity(user.username),
            email: normalizeIdentity(user.email),
            pending_email:
              user.pending_email === null ? null : normalizeIdentity(user.pending_email),
          })
      }
      const invitations = await db.from('team_invitations').select('id', 'email')
      for (const invitation of invitations) {
        await db
          .from('team_invitations')
          .where('id', invitation.id)
          .update({ email: normalizeIdentity(invitation.email) })
      }
    })
    this.schema.raw('ALTER TABLE users ALTER COLUMN username_normalized SET NOT NULL')
    this.schema.raw('DROP INDEX users_username_lower_unique')
    this.schema.raw('DROP INDEX users_email_lower_unique')
    this.schema.raw('DROP INDEX users_pending_email_lower_unique')
    this.schema.raw(
      'CREATE UNIQUE INDEX users_username_normalized_unique ON users (username_normalized)'
    )
    this.schema.raw('CREATE UNIQUE INDEX users_email_unique ON users (email)')
    this.schema.raw(
      'CREATE UNIQUE INDEX users_pending_email_unique ON users (pending_email) WHERE pending_email IS NOT NULL'
    )
  }

  async down() {
    this.schema.raw('DROP INDEX users_pending_email_unique')
    this.schema.raw('DROP INDEX users_email_unique')
    this.schema.raw('DROP INDEX users_username_normalized_unique')
    this.schema.raw(
      'CREATE UNIQUE INDEX users_pending_email_lower_unique ON users (lower(pending_email)) WHERE pending_email IS NOT NULL'
    )
    this.schema.raw('CREATE UNIQUE INDEX users_email_lower_unique ON users (lower(email))')
    this.schema.raw('CREATE UNIQUE INDEX users_username_lower_unique ON users (lower(username))')
    this.schema.alterTable('users', (table) => {
      table.dropColumn('username_normalized')
    })
  }
}
