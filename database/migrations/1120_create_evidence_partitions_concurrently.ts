import { BaseSchema } from '@adonisjs/lucid/schema'
import { MONTH_FUNCTIONS } from '#services/collections/history/evidence_view'

/**
 * evidence_body_partition again, as evidence_view.ts defines it now: two sessions
 * creating the same month's partition at once (two `history:purge` runs from cron, an
 * import beside a purge) no longer fail with "relation already exists" in the one that
 * waited. The other month functions are redefined unchanged.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw(MONTH_FUNCTIONS)
  }

  /** Nothing to restore: the earlier definition only differed by the race. */
  async down() {}
}
