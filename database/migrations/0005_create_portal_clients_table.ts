import { BaseSchema } from '@adonisjs/lucid/schema'

/** The Portal application's own credentials (HTTP Basic on login and acceptance). */
export default class extends BaseSchema {
  protected tableName = 'portal_clients'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table.string('name', 100).notNullable()
      table.string('client_id', 64).notNullable().unique()
      table.string('secret_hash', 255).notNullable()
      table.jsonb('allowed_origins').notNullable().defaultTo('[]')
      table.boolean('is_active').notNullable().defaultTo(true)
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
    })
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
