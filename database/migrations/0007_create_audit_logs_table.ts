import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Append-only audit trail. No foreign keys: records outlive what they describe.
 * Never holds a secret; `metadata` carries value-free context only.
 */
export default class extends BaseSchema {
  protected tableName = 'audit_logs'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table.timestamp('occurred_at', { useTz: true }).notNullable()
      table.string('actor_type', 30).notNullable()
      table.bigInteger('actor_user_id').nullable()
      table.bigInteger('merchant_id').nullable()
      table.string('action', 100).notNullable()
      table.string('target_type', 50).nullable()
      table.string('target_id', 64).nullable()
      table.text('reason').nullable()
      table.string('ip', 45).nullable()
      table.string('request_id', 64).nullable()
      table.string('outcome', 20).notNullable()
      table.jsonb('metadata').nullable()
      table.index(['merchant_id', 'occurred_at'])
      table.index(['actor_user_id', 'occurred_at'])
    })
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
