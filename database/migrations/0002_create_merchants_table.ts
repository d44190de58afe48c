import { BaseSchema } from '@adonisjs/lucid/schema'

export default class extends BaseSchema {
  protected tableName = 'merchants'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table.string('reference_id', 40).notNullable().unique()
      table.string('name', 150).notNullable()
      table.string('contact_person', 100).nullable()
      table.string('email', 255).notNullable()
      table.string('dial_code', 8).nullable()
      table.string('phone', 30).nullable()
      table.string('address', 500).nullable()
      table.string('website', 2048).nullable()
      table.string('logo_path', 500).nullable()
      table
        .specificType('currency', 'char(3)')
        .notNullable()
        .references('code')
        .inTable('currencies')
      table.boolean('is_active').notNullable().defaultTo(true)
      table.boolean('is_production').notNullable().defaultTo(false)
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
    })
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
