import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * `history:purge` reports how much evidence past its retention is kept on legal hold.
 * Holds are rare, so a small partial index answers that without reading the whole
 * evidence table (a sequential scan of gigabytes at millions of rows).
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw(
      `CREATE INDEX exchange_evidence_legal_hold_idx ON exchange_evidence (retain_until) WHERE purged_at IS NULL AND legal_hold`
    )
  }

  async down() {
    this.schema.raw(`DROP INDEX IF EXISTS exchange_evidence_legal_hold_idx`)
  }
}
