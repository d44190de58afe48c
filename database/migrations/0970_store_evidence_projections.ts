import { BaseSchema } from '@adonisjs/lucid/schema'
import { reprojectHistory } from '#services/collections/history/reproject_history'

/**
 * History reads serve a projection stored beside the snapshot (decisions.md §5):
 * `projection_ciphertext` is the sealed projection of a readable snapshot (null when
 * the columns alone withhold it), `projection_version` the PROJECTION_VERSION it was
 * made with. Existing rows are projected here, in the committed batches of
 * `history:reproject` (outside a migration transaction, so an interrupted run keeps
 * its progress and running the migration again resumes it).
 */
export default class extends BaseSchema {
  static disableTransactions = true

  async up() {
    this.schema.raw(`ALTER TABLE exchange_evidence
      ADD COLUMN IF NOT EXISTS projection_ciphertext text,
      ADD COLUMN IF NOT EXISTS projection_version smallint`)
    this.defer(async () => {
      await reprojectHistory()
    })
  }

  async down() {
    this.schema.raw(`ALTER TABLE exchange_evidence
      DROP COLUMN IF EXISTS projection_ciphertext,
      DROP COLUMN IF EXISTS projection_version`)
  }
}
