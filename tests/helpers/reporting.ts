/*
| Building blocks of the metrics and chart tests: transactions written straight to
| the table (the import has its own tests), and the two reporting requests.
*/
import db from '@adonisjs/lucid/services/db'
import type { Assert } from '@japa/assert'
import type { ApiClient } from '@japa/api-client'
import { route } from '#tests/helpers/routes'
import type { Environment } from '#models/collections_vocabulary'

export interface TransactionRow {
  created_at: string | null
  amount?: string | null
  /** payment_status; PAID by default. */
  status?: string | null
  legacy_status?: string | null
  environment?: Environment
  currency?: string
  payment_brand?: string
  is_archived?: boolean
  is_credited?: boolean
}

let sequence = 0

/** Inserts transactions of `merchantId` in one statement; defaults: live, PHP, gcash, PAID, 100.00. */
export async function insertTransactions(merchantId: number, rows: TransactionRow[]) {
  if (rows.length === 0) return
  await db.table('transactions').multiInsert(
    rows.map((row) => ({
      merchant_id: merchantId,
      environment: row.environment ?? 'live',
      merchant_transaction_id: `T-${++sequence}-${Math.random().toString(36).slice(2, 8)}`,
      amount: row.amount === undefined ? '100.00' : row.amount,
      currency: row.currency ?? 'PHP',
      payment_status: row.status === undefined ? 'PAID' : row.status,
      legacy_status: row.legacy_status ?? null,
      payment_brand: row.payment_brand ?? 'gcash',
      is_archived: row.is_archived ?? false,
      is_credited: row.is_credited ?? false,
      created_at: row.created_at,
      updated_at: row.created_at,
    }))
  )
}

export function getMetrics(client: ApiClient, bearer: string, query: Record<string, unknown>) {
  return client.get(route('collections.metrics')).qs(query).header('Authorization', bearer)
}

export function getChart(client: ApiClient, bearer: string, query: Record<string, unknown>) {
  return client.get(route('collections.charts')).qs(query).header('Authorization', bearer)
}

/** transaction_counts, transaction_totals and transaction_scope_totals as the triggers keep them, and recomputed. */
export async function assertRollupsExact(assert: Assert, merchantId: number) {
  const counts = await db.rawQuery(
    `SELECT environment, status, currency, payment_brand, total::text FROM transaction_counts
      WHERE merchant_id = ? AND total <> 0 ORDER BY 1, 2, 3, 4`,
    [merchantId]
  )
  const freshCounts = await db.rawQuery(
    `SELECT environment, status, currency, payment_brand, count(*)::text AS total
       FROM transactions WHERE merchant_id = ? GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    [merchantId]
  )
  assert.deepEqual(counts.rows, freshCounts.rows)
  const totals = () =>
    db.rawQuery(
      `SELECT environment, currency, grain, period_start, payment_brand, status,
              transaction_count::text, amount_total::text, null_amount_count::text
         FROM transaction_totals WHERE merchant_id = ? AND transaction_count <> 0
        ORDER BY 1, 2, 3, 4, 5, 6`,
      [merchantId]
    )
  const scopeTotals = () =>
    db.rawQuery(
      `SELECT environment, currency, grain, period_start, paid_count::text, pending_count::text,
              rejected_count::text, paid_amount_total::text, paid_null_amount_count::text
         FROM transaction_scope_totals
        WHERE merchant_id = ? AND (paid_count <> 0 OR pending_count <> 0 OR rejected_count <> 0)
        ORDER BY 1, 2, 3, 4`,
      [merchantId]
    )
  const kept = await totals()
  const keptScope = await scopeTotals()
  await db.rawQuery('SELECT reporting_rebuild_transaction_totals(?)', [merchantId])
  const fresh = await totals()
  const freshScope = await scopeTotals()
  assert.isAbove(fresh.rows.length, 0)
  assert.deepEqual(kept.rows, fresh.rows)
  assert.isAbove(freshScope.rows.length, 0)
  assert.deepEqual(keptScope.rows, freshScope.rows)
}

/**
 * The import's idempotent upsert over a merchant's first three transactions (they
 * become PAID, 7.77): ON CONFLICT DO UPDATE fires both the insert and update triggers.
 */
export function upsertAsTheImportDoes(merchantId: number) {
  return db.rawQuery(
    `INSERT INTO transactions (merchant_id, environment, merchant_transaction_id, amount, currency,
                               payment_status, payment_brand, created_at, updated_at)
     SELECT merchant_id, environment, merchant_transaction_id, 7.77, currency,
            'PAID', payment_brand, created_at, updated_at
       FROM transactions WHERE merchant_id = ? ORDER BY id LIMIT 3
     ON CONFLICT (merchant_id, environment, merchant_transaction_id)
     DO UPDATE SET amount = excluded.amount, payment_status = excluded.payment_status`,
    [merchantId]
  )
}
