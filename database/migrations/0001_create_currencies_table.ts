import { BaseSchema } from '@adonisjs/lucid/schema'
import { ISO_4217_CURRENCIES } from '#database/data/iso4217_currencies'

/** The ISO 4217 catalogue; merchants, filters and reports reference it. */
export default class extends BaseSchema {
  protected tableName = 'currencies'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.specificType('code', 'char(3)').primary()
      table.specificType('numeric_code', 'char(3)').notNullable()
      table.string('name', 100).notNullable()
      table.smallint('minor_units').notNullable()
    })
    this.defer(async (db) => {
      await db.table(this.tableName).multiInsert(
        ISO_4217_CURRENCIES.map((currency) => ({
          code: currency.code,
          numeric_code: currency.numeric,
          name: currency.name,
          minor_units: currency.minorUnits,
        }))
      )
    })
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
