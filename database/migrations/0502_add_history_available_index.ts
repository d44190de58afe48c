import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * `history_available` of every listed transaction (portal-api.md › Transaction):
 * "unpurged permitted evidence exists". A partial index holding only such rows makes
 * the per-row EXISTS an index-only probe (25 probes for a default page), instead of
 * visiting each transaction's evidence rows. Its predicate repeats the query's text
 * (transaction_rows.ts) so the planner can prove it applies.
 *
 * The kinds are written out as this migration first ran (docs/operations.md ›
 * Migrations replay what they first ran). Migration 1110 replaced this table and index
 * by evidence_records and its own index, whose predicate
 * tests/functional/collections_ops/schema_from_modules.spec.ts checks against the
 * queries'.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw(
      `CREATE INDEX exchange_evidence_available_idx
       ON exchange_evidence (transaction_id, merchant_id, environment)
       WHERE purged_at IS NULL AND kind IN ('merchant_request.validated',
         'merchant_response.synchronous', 'merchant_notification.queued',
         'merchant_notification.response', 'merchant_notification.delivery_attempt')`
    )
  }

  async down() {
    this.schema.raw('DROP INDEX IF EXISTS exchange_evidence_available_idx')
  }
}
