/*
| GET /portal/collections/transactions (portal-api.md › Collections): the merchant's
| transactions of one environment, filters combined with AND, newest first
| (`created_at` desc, nulls last, then `id` desc), with the exact total for `meta`.
|
| - Scope: the actor's merchant and the requested environment; archived included.
| - `from`/`to`: creation time in [from, to), compared as timestamptz (the literal
|   keeps its offset and microseconds, so no rounding through JavaScript).
| - `query`: substring of the merchant reference with `%`, `_` and `!` taken
|   literally (`LIKE ... ESCAPE '!'`).
| - The page and the count run concurrently on the read connection, as prepared
|   statements where the plan does not depend on the values (listQueries). The page is a
|   deferred join: the ids of the page are found on the list index alone (index-only
|   for the scope and the date range), and only those rows are fetched, so a deep
|   page skips index entries instead of heap rows. Figures: bench/README.md.
| - The count's statement, by the cheapest exact source: list_total.ts.
*/
import type { UserActor } from '#auth/actor'
import type { TransactionFilters } from '#services/collections/transactions/transaction_filters'
import { readConnection } from '#support/read_connection'
import { statementQuery } from '#platform/direct_query'
import { TRANSACTION_COLUMNS } from '#services/collections/transactions/transaction_rows'
import type { TransactionRow } from '#services/collections/transactions/transaction_rows'
import { countQuery } from '#services/collections/transactions/list_total'

export interface TransactionPage {
  items: TransactionRow[]
  total: number
}

/** `value` as a LIKE pattern matching itself anywhere, under `ESCAPE '!'`. */
export function containsPattern(value: string): string {
  return `%${value.replace(/[!%_]/g, (char) => `!${char}`)}%`
}

/** The WHERE clause of the list (unaliased columns of `transactions`) and its bindings. */
export function listConditions(merchantId: number, filters: TransactionFilters) {
  const conditions = ['merchant_id = ?', 'environment = ?']
  const bindings: Array<string | number> = [merchantId, filters.environment]
  if (filters.from && filters.to) {
    conditions.push('created_at >= ?::timestamptz', 'created_at < ?::timestamptz')
    bindings.push(filters.from.sql, filters.to.sql)
  }
  if (filters.status) {
    conditions.push('status = ?')
    bindings.push(filters.status)
  }
  if (filters.merchant_transaction_id !== undefined) {
    conditions.push('merchant_transaction_id = ?')
    bindings.push(filters.merchant_transaction_id)
  }
  if (filters.query !== undefined) {
    conditions.push(`merchant_transaction_id LIKE ? ESCAPE '!'`)
    bindings.push(containsPattern(filters.query))
  }
  if (filters.currency !== undefined) {
    conditions.push('currency = ?')
    bindings.push(filters.currency)
  }
  if (filters.payment_brand !== undefined) {
    conditions.push('payment_brand = ?')
    bindings.push(filters.payment_brand)
  }
  return { where: conditions.join(' AND '), bindings }
}

/** The two statements of a list request: the page (deferred join) and the exact count. */
export function listQueries(
  merchantId: number,
  filters: TransactionFilters,
  page: { page: number; perPage: number }
) {
  const { where, bindings } = listConditions(merchantId, filters)
  // A reference or substring filter's best plan depends on its value (how many rows
  // match): those statements are planned each time, every other shape is prepared
  // (app/platform/direct_query.ts).
  const valueDependent =
    filters.query !== undefined || filters.merchant_transaction_id !== undefined
  return {
    page: {
      prepare: !valueDependent,
      sql: `SELECT ${TRANSACTION_COLUMNS}
       FROM (
         SELECT id FROM transactions WHERE ${where}
         ORDER BY created_at DESC NULLS LAST, id DESC
         LIMIT ? OFFSET ?
       ) page
       JOIN transactions t ON t.id = page.id
       ORDER BY t.created_at DESC NULLS LAST, t.id DESC`,
      bindings: [...bindings, page.perPage, (page.page - 1) * page.perPage],
    },
    count: countQuery(merchantId, filters, where, bindings),
  }
}

/** Offsets from which the count runs before the page (see listTransactions). */
const DEEP_OFFSET = 10_000

export async function listTransactions(
  actor: UserActor,
  filters: TransactionFilters,
  page: { page: number; perPage: number }
): Promise<TransactionPage> {
  const connection = readConnection()
  const queries = listQueries(actor.merchantId, filters, page)
  const countRows = () =>
    statementQuery<{ total: string | number }>(connection, queries.count, queries.count)
  const offset = (page.page - 1) * page.perPage
  if (offset >= DEEP_OFFSET) {
    // A deep page is counted first: an OFFSET past the end would walk every matching
    // row only to return none, so a page past the total is answered without it.
    const [count] = await countRows()
    const total = Number(count.total)
    if (offset >= total) return { items: [], total }
    return {
      items: await statementQuery<TransactionRow>(connection, queries.page, queries.page),
      total,
    }
  }
  const [items, [count]] = await Promise.all([
    statementQuery<TransactionRow>(connection, queries.page, queries.page),
    countRows(),
  ])
  return { items, total: Number(count.total) }
}
