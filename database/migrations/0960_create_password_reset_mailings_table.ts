import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Reset-link mails sent per account: the cooldown and the hourly cap
 * of POST /auth/reset-password/reset-link read them, in PostgreSQL so that they hold
 * across instances. One row per mail sent; a suppressed request writes none.
 * `expires_at` is when a mail stops counting (one hour after `sent_at`); auth:prune
 * deletes the rows past it.
 */
export default class extends BaseSchema {
  protected tableName = 'password_reset_mailings'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table
        .bigInteger('user_id')
        .notNullable()
        .references('id')
        .inTable('users')
        .onDelete('CASCADE')
      table.timestamp('sent_at', { useTz: true }).notNullable()
      table.timestamp('expires_at', { useTz: true }).notNullable()
      table.index(['user_id', 'expires_at'])
      table.index(['expires_at'])
    })
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
