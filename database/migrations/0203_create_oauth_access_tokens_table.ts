import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Machine access tokens (the auth package's tokens table shape, for the OauthClient
 * model): only a SHA-256 hash of each secret is stored, with its scopes (abilities)
 * and expiry. Revoking a client deletes its rows. Kept apart from Portal PATs
 * (auth_access_tokens) so that neither kind can ever verify as the other.
 */
export default class extends BaseSchema {
  protected tableName = 'oauth_access_tokens'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table
        .bigInteger('tokenable_id')
        .notNullable()
        .references('id')
        .inTable('oauth_clients')
        .onDelete('CASCADE')
      table.string('type', 50).notNullable()
      table.string('name', 255).nullable()
      table.string('hash', 255).notNullable()
      table.text('abilities').notNullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
      table.timestamp('last_used_at', { useTz: true }).nullable()
      table.timestamp('expires_at', { useTz: true }).nullable()
      table.index(['tokenable_id', 'type'])
      table.index(['expires_at'])
    })
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
