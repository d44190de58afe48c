import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The list's `query` filter (substring of merchant_transaction_id, `LIKE '%...%'
 * ESCAPE '!'`). Without this trigram index, a selective substring cost a full scan of
 * the merchant's rows for the page and again for the count; with it, both are bitmap
 * scans of the matching rows. Substrings under three characters, or matching most
 * rows, still scan: the planner chooses, and the count stays exact.
 *
 * pg_trgm is a trusted extension (PostgreSQL 13+): a database owner may create it. On
 * a large live table, build the index first with CREATE INDEX CONCURRENTLY under this
 * name; the migration then finds it.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm')
    this.schema.raw(
      `CREATE INDEX IF NOT EXISTS transactions_reference_trgm_idx
       ON transactions USING gin (merchant_transaction_id gin_trgm_ops)`
    )
  }

  async down() {
    this.schema.raw('DROP INDEX IF EXISTS transactions_reference_trgm_idx')
  }
}
