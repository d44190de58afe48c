/*
| The supported currency catalogue (ISO 4217, seeded by migration 0001) as collection
| filters and reporting use it (portal-api.md › Collections): a code outside it is a
| 422 field error; a catalogue that cannot be read (query failure, or an empty table)
| is 503 SERVICE_UNAVAILABLE, and only currency-filtered reads ever consult it.
|
| Read on every such request, never cached: a cache would answer from a catalogue
| that can no longer be read, where the contract says 503. The check costs one
| round trip; callers overlap it with their own reads instead, and join its verdict to
| the request's other rules (app/validators/rules/currency.ts).
*/
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import { statementQuery } from '#platform/direct_query'

export async function requireSupportedCurrency(field: string, code: string): Promise<void> {
  let row: { supported: boolean; any_currency: boolean } | undefined
  try {
    ;[row] = await statementQuery(
      db.connection(),
      {
        sql: `SELECT EXISTS (SELECT 1 FROM currencies WHERE code = ?) AS supported,
                     EXISTS (SELECT 1 FROM currencies) AS any_currency`,
        bindings: [code],
      },
      { prepare: true }
    )
  } catch {
    throw ApiError.serviceUnavailable('The currency catalogue is unavailable.')
  }
  if (!row?.any_currency) {
    throw ApiError.serviceUnavailable('The currency catalogue is unavailable.')
  }
  if (!row.supported) {
    throw ApiError.field(field, `The ${field} field must be a currency of the supported catalogue.`)
  }
}
