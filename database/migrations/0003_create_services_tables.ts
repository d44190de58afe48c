import { BaseSchema } from '@adonisjs/lucid/schema'

/** Services the operator offers, and which of them each merchant is assigned. */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('services', (table) => {
      table.bigIncrements('id')
      table.string('code', 100).notNullable().unique()
      table.string('type', 50).notNullable()
      table.boolean('is_active').notNullable().defaultTo(true)
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
    })
    this.schema.createTable('merchant_services', (table) => {
      table.bigIncrements('id')
      table
        .bigInteger('merchant_id')
        .notNullable()
        .references('id')
        .inTable('merchants')
        .onDelete('CASCADE')
      table
        .bigInteger('service_id')
        .notNullable()
        .references('id')
        .inTable('services')
        .onDelete('CASCADE')
      table.boolean('is_active').notNullable().defaultTo(true)
      table.boolean('is_production').notNullable().defaultTo(false)
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
      table.unique(['merchant_id', 'service_id'])
    })
  }

  async down() {
    this.schema.dropTable('merchant_services')
    this.schema.dropTable('services')
  }
}
