import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * OAuth clients (portal-api.md › Machine clients). Merchant machine clients are
 * confidential, client-credentials only (kind `machine`); the other kinds exist so
 * that framework, personal-access and ecosystem (Portal application) client
 * mappings can be recognised and refused. The secret is stored only as an
 * HMAC-SHA256 digest keyed with APP_KEY (docs/machine-clients.md). Revocation sets
 * `revoked_at`; rows are never deleted.
 */
export default class extends BaseSchema {
  protected tableName = 'oauth_clients'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table.string('name', 150).notNullable()
      table
        .enum('kind', ['machine', 'personal_access', 'password', 'framework', 'ecosystem'], {
          useNative: false,
          enumName: 'oauth_client_kind',
        })
        .notNullable()
        .defaultTo('machine')
      table.string('secret_hash', 128).nullable()
      table.timestamp('revoked_at', { useTz: true }).nullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
    })
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
