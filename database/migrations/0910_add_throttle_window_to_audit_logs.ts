import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Throttled refusals are recorded once per limit key and minute, with a count: a flood of refused requests updates one row instead of adding one
 * row each. `throttle_key` identifies the key and window (a SHA-256, hex); NULL on
 * every other record.
 */
export default class extends BaseSchema {
  protected tableName = 'audit_logs'

  async up() {
    this.schema.alterTable(this.tableName, (table) => {
      table.string('throttle_key', 64).nullable().unique()
      table.integer('refused_count').nullable()
    })
  }

  async down() {
    this.schema.alterTable(this.tableName, (table) => {
      table.dropColumn('throttle_key')
      table.dropColumn('refused_count')
    })
  }
}
