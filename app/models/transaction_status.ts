/*
| Status normalization (portal-api.md › Transaction): a recognized payment_status
| wins, case-insensitively; otherwise the legacy value `S` means PAID, `R` REJECTED,
| anything else (absent included) PENDING. Lists, detail, import and reporting all
| use this rule. Its one SQL mirror is the generated `transactions.status` column
| (migration 0500), so filters and aggregates read the stored normalized value.
*/
export const TRANSACTION_STATUSES = ['PAID', 'PENDING', 'REJECTED'] as const
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number]

const RECOGNIZED = new Set<string>(TRANSACTION_STATUSES)

export function normalizeStatus(
  paymentStatus: string | null | undefined,
  legacyStatus: string | null | undefined
): TransactionStatus {
  const upper = paymentStatus?.toUpperCase()
  if (upper !== undefined && RECOGNIZED.has(upper)) return upper as TransactionStatus
  const legacy = legacyStatus?.toUpperCase()
  if (legacy === 'S') return 'PAID'
  if (legacy === 'R') return 'REJECTED'
  return 'PENDING'
}

/** The same rule in SQL, for the generated column. Keep the two in step (unit-tested). */
export const NORMALIZED_STATUS_SQL = `CASE
  WHEN upper(payment_status) IN ('PAID', 'PENDING', 'REJECTED') THEN upper(payment_status)
  WHEN upper(legacy_status) = 'S' THEN 'PAID'
  WHEN upper(legacy_status) = 'R' THEN 'REJECTED'
  ELSE 'PENDING'
END`
