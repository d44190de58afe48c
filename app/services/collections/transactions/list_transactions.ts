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
*/
import type { UserActor } from '#auth/actor'
import type { Timestamp } from '#validators/rules/timestamp'
import type { Environment, TransactionStatus } from '#models/collections_vocabulary'
import { readConnection } from '#support/read_connection'
import { statementQuery } from '#support/direct_query'
import { TRANSACTION_COLUMNS } from '#services/collections/transactions/transaction_rows'
import type { TransactionRow } from '#shapes/collections'
import { sqlInstant } from '#support/instants'
import { planReads, type BucketRange } from '#services/collections/reporting/query_plan'

export interface TransactionFilters {
  environment: Environment
  from?: Timestamp
  to?: Timestamp
  status?: TransactionStatus
  merchant_transaction_id?: string
  query?: string
  currency?: string
  payment_brand?: string
}

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
  // (app/support/direct_query.ts).
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

/**
 * The exact total, by the cheapest exact source the filters allow:
 * - environment and any of status, currency and brand: summed from the maintained
 *   counts (migration 0503);
 * - the same plus a date range: the rollup of migration 0601 for the whole UTC
 *   months and days inside the range and `count(*)` of the raw rows at its cut edges
 *   (rangeCountQuery);
 * - a reference or substring filter: `count(*)` of the same conditions.
 */
function countQuery(
  merchantId: number,
  filters: TransactionFilters,
  where: string,
  bindings: Array<string | number>
) {
  if (filters.merchant_transaction_id !== undefined || filters.query !== undefined) {
    return {
      sql: `SELECT count(*) AS total FROM transactions WHERE ${where}`,
      bindings,
      prepare: false,
    }
  }
  const conditions = ['merchant_id = ?', 'environment = ?']
  const values: Array<string | number> = [merchantId, filters.environment]
  for (const [column, value] of [
    ['status', filters.status],
    ['currency', filters.currency],
    ['payment_brand', filters.payment_brand],
  ] as const) {
    if (value === undefined) continue
    conditions.push(`${column} = ?`)
    values.push(value)
  }
  if (filters.from && filters.to) {
    const range = { from: filters.from.epochMicros, to: filters.to.epochMicros }
    return rangeCountQuery(conditions, values, range, filters.currency === undefined)
  }
  return {
    sql: `SELECT coalesce(sum(total), 0) AS total FROM transaction_counts
          WHERE ${conditions.join(' AND ')}`,
    bindings: values,
    prepare: true,
  }
}

/** PostgreSQL array literals of the parts' signs, starts and ends. */
function partArrays(parts: BucketRange[]) {
  return [
    `{${parts.map((part) => part.sign).join(',')}}`,
    `{${parts.map((part) => `"${sqlInstant(part.from)}"`).join(',')}}`,
    `{${parts.map((part) => `"${sqlInstant(part.to)}"`).join(',')}}`,
  ]
}

/**
 * The exact count of [from, to) under `conditions` (columns shared by `transactions`
 * and `transaction_totals`), read as the reporting aggregate reads its buckets
 * (app/services/collections/reporting/query_plan.ts): whole UTC months and days from the rollup, the rest
 * (at most a day at each edge) from the rows, each part added or subtracted. Every
 * part is exact and the statement reads one snapshot, so the sum is what `count(*)`
 * would give, from a few rollup rows instead of every index entry of the range.
 *
 * The rollup's key starts with (merchant, environment, currency): without a currency
 * filter, the merchant's currencies (the counts of migration 0503 keep a row for every
 * currency it ever had) are joined in, so each part is one index range per currency.
 */
function rangeCountQuery(
  conditions: string[],
  values: Array<string | number>,
  range: { from: bigint; to: bigint },
  byCurrency: boolean
) {
  const plan = planReads([range])
  const scope = (alias: string) =>
    conditions.map((condition) => `${alias}.${condition}`).join(' AND ')
  const parts = `unnest(?::int[], ?::timestamptz[], ?::timestamptz[]) AS r (sign, lo, hi)`
  // A join, not `currency = ANY (array)`, which the planner kept as a filter.
  const currencies = byCurrency
    ? ` CROSS JOIN (SELECT DISTINCT c.currency FROM transaction_counts c
          WHERE c.merchant_id = ? AND c.environment = ?) AS cur`
    : ''
  const sameCurrency = (alias: string) =>
    byCurrency ? ` AND ${alias}.currency = cur.currency` : ''
  const currencyBindings = byCurrency ? values.slice(0, 2) : []
  // Each part (and currency) its own range scan of the rollup's key, or of the
  // reporting index for the raw edges: LATERAL, fenced by OFFSET 0 as in
  // app/services/collections/reporting/aggregate_statement.ts, since as plain joins PostgreSQL read every
  // rollup row of the scope, or scanned the merchant's transactions, for every part.
  const rollup = (grain: 'day' | 'month') => `
    (SELECT coalesce(sum(r.sign * s.transaction_count), 0) FROM ${parts}${currencies}
       CROSS JOIN LATERAL (
         SELECT s.transaction_count FROM transaction_totals s
          WHERE ${scope('s')}${sameCurrency('s')}
            AND s.grain = '${grain}' AND s.period_start >= r.lo AND s.period_start < r.hi
         OFFSET 0) AS s)`
  return {
    // Prepared: with every part its own index range, the generic plan is as good.
    prepare: true,
    sql: `SELECT
      (SELECT coalesce(sum(r.sign), 0) FROM ${parts}${currencies}
         CROSS JOIN LATERAL (
           SELECT 1 FROM transactions t
            WHERE ${scope('t')}${sameCurrency('t')}
              AND t.created_at >= r.lo AND t.created_at < r.hi
           OFFSET 0) AS t)
      + ${rollup('day')}
      + ${rollup('month')} AS total`,
    bindings: [
      ...partArrays(plan.raw),
      ...currencyBindings,
      ...values,
      ...partArrays(plan.day),
      ...currencyBindings,
      ...values,
      ...partArrays(plan.month),
      ...currencyBindings,
      ...values,
    ],
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
