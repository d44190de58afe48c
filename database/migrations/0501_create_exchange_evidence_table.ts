import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Exchange evidence behind the transaction history (portal-api.md › History item,
 * decisions.md §5). The snapshot is stored exactly as captured, encrypted with the
 * application key (`snapshot_ciphertext`; `snapshot_size` is its size in bytes, so
 * oversize snapshots are withheld without reading them). The Portal projection is
 * applied when history is read. Purging nulls the snapshot and sets `purged_at`; the
 * row stays so coverage can say `purged`.
 */
export default class extends BaseSchema {
  protected tableName = 'exchange_evidence'

  async up() {
    this.schema.createTable(this.tableName, (table) => {
      table.specificType('id', 'char(26)').primary()
      table
        .bigInteger('merchant_id')
        .notNullable()
        .references('id')
        .inTable('merchants')
        .onDelete('CASCADE')
      table
        .bigInteger('transaction_id')
        .notNullable()
        .references('id')
        .inTable('transactions')
        .onDelete('CASCADE')
      table.string('environment', 4).notNullable()
      table.string('kind', 64).notNullable()
      table.string('source', 32).notNullable()
      table.string('direction', 16).notNullable()
      table.timestamp('captured_at', { useTz: true }).notNullable()
      table.string('capture_format', 64).notNullable()
      table.integer('schema_version').nullable()
      table.text('snapshot_ciphertext').nullable()
      table.integer('snapshot_size').nullable()
      table.string('content_type', 255).nullable()
      table.string('body_capture_status', 64).nullable()
      table.string('event_id', 128).nullable()
      table.integer('attempt_number').nullable()
      table.integer('http_status').nullable()
      table.string('delivery_state', 16).nullable()
      table.integer('duration_ms').nullable()
      table.boolean('is_repeated_request').nullable()
      table.timestamp('retain_until', { useTz: true }).notNullable()
      table.boolean('legal_hold').notNullable().defaultTo(false)
      table.timestamp('purged_at', { useTz: true }).nullable()
      table.timestamp('created_at', { useTz: true }).notNullable()
    })
    // History of one transaction, chronological (captured_at, then ULID).
    this.schema.raw(
      `CREATE INDEX exchange_evidence_history_idx ON exchange_evidence (transaction_id, captured_at, id)`
    )
    // Purge candidates: unpurged, not on hold, by retention deadline.
    this.schema.raw(
      `CREATE INDEX exchange_evidence_purge_idx ON exchange_evidence (retain_until) WHERE purged_at IS NULL AND NOT legal_hold`
    )
  }

  async down() {
    this.schema.dropTable(this.tableName)
  }
}
