/*
| How collection transactions are read (portal-api.md › Transaction), shared by the
| list and the detail: the scope (merchant from the actor, environment from the
| query), the selected columns, and `history_available`.
|
| - Timestamps are formatted by PostgreSQL to the microsecond in UTC, so what was
|   stored (and what `from`/`to` compare against) is shown exactly.
| - `history_available`: unpurged evidence of a permitted kind exists: a record not
|   purged by itself nor with its month (evidence_storage.ts). It is an EXISTS probe on
|   the partial index of migration 1110 (one index-only lookup per row of the page,
|   its body_month checked against the few purged months).
*/
import { PERMITTED_KINDS } from '#services/collections/history/evidence_kinds'
import type { Transaction } from '#shapes/collections'
import { RECORDS, UNPURGED } from '#services/collections/history/evidence_layout'

/**
 * A row of TRANSACTION_COLUMNS (below), read by the list and the detail and turned
 * into the Transaction shape by transaction_transformer.ts: its fields but
 * `payment_method`, which is not stored.
 */
export type TransactionRow = Omit<Transaction, 'payment_method'>

/** `col` as ISO 8601 UTC with six fractional digits, or NULL. */
export const isoUtc = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/**
 * The permitted kinds as an SQL list; constants of evidence_kinds.ts, never input. The
 * partial index evidence_records_available_idx repeats it, so that the planner can use
 * it for the queries that name it: a change needs a migration that rebuilds the index
 * (schema_from_modules.spec.ts checks).
 */
export const PERMITTED_KINDS_SQL = PERMITTED_KINDS.map((kind) => `'${kind}'`).join(', ')

/**
 * The columns a transaction is stored in (migration 0500), as the import writes them
 * (and the bench datasets with it): its key, then its values. `id` comes from the
 * sequence and `status` is generated from the two raw statuses.
 */
export const TRANSACTION_KEY_COLUMNS = ['merchant_id', 'environment', 'merchant_transaction_id']
export const TRANSACTION_VALUE_COLUMNS = [
  'amount',
  'currency',
  'payment_status',
  'legacy_status',
  'payment_brand',
  'is_archived',
  'is_credited',
  'created_at',
  'updated_at',
]

/** Columns of a transaction row (TransactionRow, above); `t` is the transactions alias. */
export const TRANSACTION_COLUMNS = `t.id, t.merchant_transaction_id, t.environment, t.amount,
  t.currency, t.status, t.payment_brand,
  ${isoUtc('t.created_at')} AS created_at, ${isoUtc('t.updated_at')} AS updated_at,
  EXISTS (
    SELECT 1 FROM ${RECORDS} e
    WHERE e.transaction_id = t.id AND e.merchant_id = t.merchant_id
      AND e.environment = t.environment
      AND ${UNPURGED} AND e.kind IN (${PERMITTED_KINDS_SQL})
  ) AS history_available`
