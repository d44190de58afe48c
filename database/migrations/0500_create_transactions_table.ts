import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Collection transactions (portal-api.md › Transaction), read-only for the Portal and
 * loaded by `collections:import`. `status` is the normalized status, generated from
 * payment_status and legacy_status by the one rule of collections_vocabulary.ts, so
 * filters and reporting never re-derive it. Money is numeric(14,2), never a float.
 *
 * The rule's SQL is written out as this migration first ran it (docs/operations.md ›
 * Migrations replay what they first ran); tests/functional/collections_ops/
 * schema_from_modules.spec.ts checks it against NORMALIZED_STATUS_SQL.
 */
const NORMALIZED_STATUS_0500 = `CASE
  WHEN upper(payment_status) IN ('PAID', 'PENDING', 'REJECTED') THEN upper(payment_status)
  WHEN upper(legacy_status) = 'S' THEN 'PAID'
  WHEN upper(legacy_status) = 'R' THEN 'REJECTED'
  ELSE 'PENDING'
END`

export default class extends BaseSchema {
  protected tableName = 'transactions'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.bigIncrements('id')
      table
        .bigInteger('merchant_id')
        .notNullable()
        .references('id')
        .inTable('merchants')
        .onDelete('CASCADE')
      table.string('environment', 4).notNullable()
      table.string('merchant_transaction_id', 100).notNullable()
      table.decimal('amount', 14, 2).nullable()
      table.specificType('currency', 'char(3)').notNullable()
      table.string('payment_status', 32).nullable()
      table.string('legacy_status', 32).nullable()
      table.string('payment_brand', 100).notNullable()
      table.boolean('is_archived').notNullable().defaultTo(false)
      table.boolean('is_credited').notNullable().defaultTo(false)
      table.timestamp('created_at', { useTz: true }).nullable()
      table.timestamp('updated_at', { useTz: true }).nullable()
      table.unique(['merchant_id', 'environment', 'merchant_transaction_id'])
    })
    this.schema.raw(
      `ALTER TABLE transactions ADD COLUMN status varchar(8) GENERATED ALWAYS AS (${NORMALIZED_STATUS_0500}) STORED NOT NULL`
    )
    this.schema.raw(
      `ALTER TABLE transactions ADD CONSTRAINT transactions_environment_check CHECK (environment IN ('test', 'live'))`
    )
    // The list's scope and sort: merchant, environment, created_at desc, id desc.
    this.schema.raw(
      `CREATE INDEX transactions_list_idx ON transactions (merchant_id, environment, created_at DESC NULLS LAST, id DESC)`
    )
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
