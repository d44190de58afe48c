import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Metrics and charts (portal-api.md › GET /portal/collections/metrics and /charts)
 * read one merchant, environment and currency over a created_at range, and only
 * status, amount and payment_brand of each row: this index answers them with an
 * index-only range scan (brand filtered on the included column). Built CONCURRENTLY
 * so that adding it to a large live table does not block imports.
 */
export default class extends BaseSchema {
  static disableTransactions = true

  async up() {
    this.schema.raw(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS transactions_reporting_idx
         ON transactions (merchant_id, environment, currency, created_at)
         INCLUDE (status, amount, payment_brand)`
    )
  }

  async down() {
    this.schema.raw(`DROP INDEX CONCURRENTLY IF EXISTS transactions_reporting_idx`)
  }
}
