import { BaseSchema } from '@adonisjs/lucid/schema'
import { splitEvidence } from '#services/collections/history/evidence_split'
import { restoreEvidenceTable } from '#services/collections/history/evidence_unsplit'

/**
 * Retention by partition (docs/operations.md › Retention by partition): evidence split
 * into records and bodies partitioned by the month of retain_until, so purging a month
 * empties a partition instead of updating each row; `exchange_evidence` becomes the
 * view of them. Outside a migration transaction, in committed batches beside the
 * running service (evidence_split.ts): an interrupted run keeps its progress and
 * running the migration again resumes it. down() builds the table back.
 *
 * Unlike 1120 and 1130, it runs a module, not SQL written out: the split is an
 * operation (batches, progress, resumption) whose tests run it too. Later migrations
 * redefine its month functions (docs/operations.md › Migrations replay what they first ran).
 */
export default class extends BaseSchema {
  static disableTransactions = true

  async up() {
    this.defer(async () => {
      await splitEvidence()
    })
  }

  async down() {
    this.defer(async () => {
      await restoreEvidenceTable()
    })
  }
}
