import { BaseSchema } from '@adonisjs/lucid/schema'
import { PERMITTED_KINDS } from '#services/collections/history/evidence_kinds'

/**
 * `history_available` of every listed transaction (portal-api.md › Transaction):
 * "unpurged permitted evidence exists". A partial index holding only such rows makes
 * the per-row EXISTS an index-only probe (25 probes for a default page), instead of
 * visiting each transaction's evidence rows. Its predicate repeats the query's text
 * (transaction_rows.ts) so the planner can prove it applies.
 */
export default class extends BaseSchema {
  async up() {
    const kinds = PERMITTED_KINDS.map((kind) => `'${kind}'`).join(', ')
    this.schema.raw(
      `CREATE INDEX exchange_evidence_available_idx
       ON exchange_evidence (transaction_id, merchant_id, environment)
       WHERE purged_at IS NULL AND kind IN (${kinds})`
    )
  }

  async down() {
    this.schema.raw('DROP INDEX IF EXISTS exchange_evidence_available_idx')
  }
}
