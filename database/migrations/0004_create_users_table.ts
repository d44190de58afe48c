import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * People who sign in to the Portal. role: 1 administrator, 10 developer; any other
 * value is an internal (operator) role that the Portal never serves. Usernames and
 * emails are unique case-insensitively.
 */
export default class extends BaseSchema {
  protected tableName = 'users'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table.string('reference_id', 40).notNullable().unique()
      table
        .bigInteger('merchant_id')
        .nullable()
        .references('id')
        .inTable('merchants')
        .onDelete('RESTRICT')
      table.string('username', 255).notNullable()
      table.string('email', 255).notNullable()
      table.string('password', 255).notNullable()
      table.string('first_name', 50).notNullable()
      table.string('last_name', 50).notNullable()
      table.smallint('role').notNullable()
      table.boolean('is_active').notNullable().defaultTo(true)
      table.timestamp('email_verified_at', { useTz: true }).nullable()
      table.string('remember_me_token', 100).nullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
      table.timestamp('updated_at', { useTz: true }).notNullable()
      table.index(['merchant_id'])
    })
    this.schema.raw('CREATE UNIQUE INDEX users_username_lower_unique ON users (lower(username))')
    this.schema.raw('CREATE UNIQUE INDEX users_email_lower_unique ON users (lower(email))')
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
