import { BaseSchema } from '@adonisjs/lucid/schema'
import { repairStoredWebsites } from '#services/merchants/stored_websites'

/**
 * `merchants.website` holds only URIs by the website rule
 * (app/validators/rules/website.ts): values the earlier, looser rule stored are
 * rewritten as the URI they stand for, or cleared (app/services/merchants/stored_websites.ts).
 * The table keeps its structure. down() changes nothing: every rewritten or cleared
 * value is valid under the earlier rule too, and the originals are not kept (they
 * are what broke every merchant response).
 */
export default class extends BaseSchema {
  async up() {
    this.defer(async (db) => {
      await repairStoredWebsites(db)
    })
  }

  async down() {}
}
