/*
| The filters of GET /portal/collections/transactions (portal-api.md › Collections), as
| validated: read by the page statement (list_transactions.ts) and the count
| (list_total.ts).
*/
import type { Timestamp } from '#validators/rules/timestamp'
import type { Environment, TransactionStatus } from '#models/collections_vocabulary'

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
