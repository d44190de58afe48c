/*
| The supported currency catalogue (ISO 4217, seeded by migration 0001) as collection
| filters and reporting use it (portal-api.md › Collections): a code outside it is a
| 422 field error; a catalogue that cannot be read (query failure, or an empty table)
| is 503 SERVICE_UNAVAILABLE, and only currency-filtered reads ever consult it.
|
| Read on every such request, never cached: a cache would answer from a catalogue
| that can no longer be read, where the contract says 503. The check costs one
| round trip; callers overlap it with their own reads (`afterCatalogue`) instead.
*/
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import { statementQuery } from '#support/direct_query'

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
  if (!row.supported) throw ApiError.field(field, 'The currency is not supported.')
}

/**
 * `work`'s result once `catalogue` (a pending `requireSupportedCurrency`, or nothing)
 * has passed. Both run concurrently; the catalogue's refusal (422 or 503) is thrown in
 * preference to anything `work` threw, so the answer is the one the sequential order
 * (catalogue first, then the read) gives, a round trip sooner.
 */
export async function afterCatalogue<T>(
  catalogue: Promise<void> | undefined,
  work: Promise<T>
): Promise<T> {
  if (catalogue === undefined) return work
  const [checked, done] = await Promise.allSettled([catalogue, work])
  if (checked.status === 'rejected') throw checked.reason
  if (done.status === 'rejected') throw done.reason
  return done.value
}
