import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * One-time handover of a machine client's secret (portal-api.md › Credential
 * delivery). The plaintext secret is kept encrypted (APP_KEY, AES-256-GCM) for five
 * minutes and the row is deleted when consumed, expired or invalidated.
 */
export default class extends BaseSchema {
  protected tableName = 'credential_deliveries'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.uuid('id').primary()
      table
        .bigInteger('merchant_id')
        .notNullable()
        .references('id')
        .inTable('merchants')
        .onDelete('CASCADE')
      table
        .bigInteger('merchant_oauth_client_id')
        .notNullable()
        .references('id')
        .inTable('merchant_oauth_clients')
        .onDelete('CASCADE')
      table
        .bigInteger('oauth_client_id')
        .notNullable()
        .references('id')
        .inTable('oauth_clients')
        .onDelete('CASCADE')
      table
        .bigInteger('issued_by_user_id')
        .notNullable()
        .references('id')
        .inTable('users')
        .onDelete('CASCADE')
      table.text('encrypted_secret').notNullable()
      table.timestamp('expires_at', { useTz: true }).notNullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.index(['merchant_oauth_client_id'])
      table.index(['merchant_id', 'expires_at'])
    })
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
