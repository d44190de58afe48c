import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Several reset proofs of one user may coexist (issue 38 › 5): a new reset mail no
 * longer replaces the link its owner already holds. The unique constraint on
 * `user_id` goes; a plain index keeps the lookups and deletions by user. How many
 * coexist is bounded by the reset mails an account may get in an hour
 * (app/services/profile/passwords.ts).
 */
export default class extends BaseSchema {
  protected tableName = 'password_reset_tokens'

  async up() {
    this.schema.alterTable(this.tableName, (table) => {
      table.dropUnique(['user_id'])
      table.index(['user_id'])
    })
  }

  async down() {
    // One proof per user again: the most recent one stays, as a new mail used to keep it.
    this.defer(async (db) => {
      await db.rawQuery(
        `DELETE FROM password_reset_tokens AS older
          USING password_reset_tokens AS newer
          WHERE newer.user_id = older.user_id
            AND (newer.created_at, newer.id) > (older.created_at, older.id)`
      )
    })
    this.schema.alterTable(this.tableName, (table) => {
      table.dropIndex(['user_id'])
      table.unique(['user_id'])
    })
  }
}
