import { BaseSchema } from '@adonisjs/lucid/schema'
import { normalizeLabel } from '#support/machine_client_label'

/**
 * Machine-client labels are compared as stored, like identities (0590):
 * `merchant_oauth_clients.label_normalized` holds the label normalized by
 * app/support/machine_client_label.ts, and the per-merchant unique index covers it
 * instead of PostgreSQL's `lower(label)`. Existing rows are backfilled by the same
 * function; two labels of one merchant that only the new rule makes equal stop the
 * migration with their ids (rename one, then migrate again). Rolling back fails the
 * same way on labels that only `lower(label)` makes equal.
 */
export default class extends BaseSchema {
  protected tableName = 'merchant_oauth_clients'

  async up() {
    this.schema.alterTable(this.tableName, (table) => {
      table.text('label_normalized').nullable()
    })
    this.defer(async (db) => {
      const rows = await db
        .from(this.tableName)
        .select('id', 'merchant_id', 'label')
        .orderBy('id', 'asc')
      const seen = new Map<string, number>()
      for (const row of rows) {
        const normalized = normalizeLabel(row.label)
        const key = `${row.merchant_id}\u0000${normalized}`
        const other = seen.get(key)
        if (other !== undefined) {
          throw new Error(
            `merchant_oauth_clients ${other} and ${row.id} (merchant ${row.merchant_id}) have labels equal after normalization`
          )
        }
        seen.set(key, row.id)
        await db.from(this.tableName).where('id', row.id).update({ label_normalized: normalized })
      }
    })
    this.schema.raw('ALTER TABLE merchant_oauth_clients ALTER COLUMN label_normalized SET NOT NULL')
    this.schema.raw('DROP INDEX merchant_oauth_clients_label_unique')
    this.schema.raw(
      'CREATE UNIQUE INDEX merchant_oauth_clients_label_normalized_unique ON merchant_oauth_clients (merchant_id, label_normalized)'
    )
  }

  async down() {
    this.schema.raw('DROP INDEX merchant_oauth_clients_label_normalized_unique')
    this.schema.raw(
      'CREATE UNIQUE INDEX merchant_oauth_clients_label_unique ON merchant_oauth_clients (merchant_id, lower(label))'
    )
    this.schema.alterTable(this.tableName, (table) => {
      table.dropColumn('label_normalized')
    })
  }
}
