import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Password reset proofs (portal-api.md › POST /auth/reset-password/*, Authentication
 * rule 9). One live proof per user (a new request replaces the previous one); only
 * the SHA-256 of the proof is stored; using it deletes the row (single use).
 */
export default class extends BaseSchema {
  protected tableName = 'password_reset_tokens'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table
        .bigInteger('user_id')
        .notNullable()
        .unique()
        .references('id')
        .inTable('users')
        .onDelete('CASCADE')
      table.string('token_hash', 64).notNullable()
      table.timestamp('expires_at', { useTz: true }).notNullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.index(['expires_at'])
    })
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
