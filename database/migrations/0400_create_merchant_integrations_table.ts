import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * A merchant's integration settings (portal-api.md › Integration keys): the two
 * write-only keys, encrypted with the application's encryption (APP_KEY, AES-256-GCM,
 * purpose-bound to merchant and key type), next to the notification settings that key
 * changes must preserve (webhook URL and the `x_token` signing fallback, kept by
 * operators). At most one row per merchant, created by the first key write: reading
 * presence never creates it.
 */
export default class extends BaseSchema {
  protected tableName = 'merchant_integrations'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table
        .bigInteger('merchant_id')
        .notNullable()
        .unique()
        .references('id')
        .inTable('merchants')
        .onDelete('CASCADE')
      table.text('encrypted_authentication_token').nullable()
      table.text('encrypted_secret_key').nullable()
      table.string('webhook_url', 2048).nullable()
      table.text('encrypted_x_token').nullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
    })
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
