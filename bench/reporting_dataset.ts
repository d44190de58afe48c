/*
| Reporting benchmark datasets (bench/README.md), loaded with one generate_series
| statement each (the triggers of migration 0601 keep the rollup as rows arrive):
| - `large`: 1,000,000 live PHP transactions over ten years;
| - `typical`: 50,000 test PHP transactions over the same ten years (5,000 a year).
| Both belong to one merchant: the scope (merchant, environment, currency) is what
| every reporting query and index key starts with, so two environments are two
| independent populations. Statuses 80 % PAID, 10 % PENDING, 10 % REJECTED (a share
| through the legacy column), five brands, amounts 1.00-50,000.00, 10 % archived,
| 5 % credited. Deterministic (setseed). A dataset already loaded is kept. `rows`
| gives a population another size (the benches' smoke runs load a few thousand).
*/
import type pg from 'pg'

export const DATASET_START = '2016-11-22T00:00:00+08:00'
export const DATASET_END = '2026-11-22T00:00:00+08:00'

export const DATASETS = {
  large: { environment: 'live', rows: 1_000_000 },
  typical: { environment: 'test', rows: 50_000 },
} as const

export type DatasetName = keyof typeof DATASETS

export async function loadReportingDataset(
  sql: pg.Client,
  merchantId: number,
  name: DatasetName,
  rows: number = DATASETS[name].rows
) {
  const { environment } = DATASETS[name]
  const existing = await sql.query(
    `SELECT count(*)::int AS total FROM transactions
      WHERE merchant_id = $1 AND environment = $2 AND currency = 'PHP'`,
    [merchantId, environment]
  )
  if (existing.rows[0].total === rows) return { name, rows, loaded: false }
  await sql.query('BEGIN')
  await sql.query(`DELETE FROM transactions WHERE merchant_id = $1 AND environment = $2`, [
    merchantId,
    environment,
  ])
  await sql.query(`SELECT setseed(0.42)`)
  await sql.query(
    `INSERT INTO transactions (merchant_id, environment, merchant_transaction_id, amount, currency,
                               payment_status, legacy_status, payment_brand, is_archived,
                               is_credited, created_at, updated_at)
     SELECT $1, $2::text, 'BENCH-' || $2::text || '-' || g, round((1 + random() * 49999)::numeric, 2), 'PHP',
            CASE WHEN pick < 0.80 THEN 'PAID' WHEN pick < 0.85 THEN 'PENDING'
                 WHEN pick < 0.90 THEN 'REJECTED' ELSE NULL END,
            CASE WHEN pick >= 0.95 THEN 'R' WHEN pick >= 0.90 THEN 'P' ELSE NULL END,
            (ARRAY['gcash', 'maya', 'card', 'grabpay', 'bpi'])[1 + (g % 5)],
            random() < 0.10, random() < 0.05, at, at
       FROM (SELECT g, random() AS pick,
                    $3::timestamptz + random() * ($4::timestamptz - $3::timestamptz) AS at
               FROM generate_series(1, $5::int) AS g) AS source`,
    [merchantId, environment, DATASET_START, DATASET_END, rows]
  )
  await sql.query('COMMIT')
  return { name, rows, loaded: true }
}
