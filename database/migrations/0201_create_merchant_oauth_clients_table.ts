import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Merchant ownership of OAuth clients (portal-api.md › Machine client metadata).
 * `id` is the `{client}` route id, distinct from `oauth_client_id`. Labels are
 * unique per merchant, case-insensitively, revoked records included.
 */
export default class extends BaseSchema {
  protected tableName = 'merchant_oauth_clients'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table
        .bigInteger('merchant_id')
        .notNullable()
        .references('id')
        .inTable('merchants')
        .onDelete('CASCADE')
      table
        .bigInteger('oauth_client_id')
        .notNullable()
        .unique()
        .references('id')
        .inTable('oauth_clients')
        .onDelete('CASCADE')
      table.string('label', 100).notNullable()
      table.string('reason', 500).nullable()
      table.boolean('is_active').notNullable().defaultTo(true)
      table
        .bigInteger('issued_by_user_id')
        .nullable()
        .references('id')
        .inTable('users')
        .onDelete('SET NULL')
      table
        .bigInteger('replaces_merchant_oauth_client_id')
        .nullable()
        .references('id')
        .inTable('merchant_oauth_clients')
        .onDelete('SET NULL')
      table.timestamp('rotation_deadline_at', { useTz: true }).nullable()
      table.timestamp('revoked_at', { useTz: true }).nullable()
      table.timestamp('last_used_at', { useTz: true }).nullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
      table.index(['merchant_id', 'id'])
    })
    this.schema.raw(
      'CREATE UNIQUE INDEX merchant_oauth_clients_label_unique ON merchant_oauth_clients (merchant_id, lower(label))'
    )
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
