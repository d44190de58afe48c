import { BaseSchema } from '@adonisjs/lucid/schema'
import { MONTH_FUNCTIONS } from '#services/collections/history/evidence_view'

/**
 * evidence_body_partition again, as evidence_view.ts defines it now: it no longer
 * creates the partition of a month purged whole (an import of that month's events
 * stores their bodies loose), so that the partition history:purge drops stays gone
 * (purged_partitions.ts). The other month functions are redefined unchanged. The
 * partitions of months purged before are dropped by the next history:purge, not here.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw(MONTH_FUNCTIONS)
  }

  /** Nothing to restore: the earlier definition only created empty partitions more. */
  async down() {}
}
