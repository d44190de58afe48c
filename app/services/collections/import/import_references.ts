/*
| What the import checks lines against in the database (import_transactions.ts): the
| merchants a file names and the currency catalogue.
*/
import db from '@adonisjs/lucid/services/db'

/** Merchants named by the file, looked up once each. */
export class MerchantCheck {
  private known = new Map<number, boolean>()

  async exists(id: number) {
    let found = this.known.get(id)
    if (found === undefined) {
      found = (await db.from('merchants').where('id', id).select('id').first()) !== null
      this.known.set(id, found)
    }
    return found
  }
}

/** The currency codes a line's `currency` may be, read once per import. */
export async function loadCurrencies() {
  const rows = await db.from('currencies').select('code')
  return new Set(rows.map((row: { code: string }) => row.code))
}
