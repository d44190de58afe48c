import { PortalTransformer } from '#transformers/portal_transformer'
import type { Transaction } from '#shapes/collections'
import type { TransactionRow } from '#services/collections/transactions/transaction_rows'

/**
 * portal-api.md › Transaction. `amount` is the numeric column's text (two decimals)
 * or null; `status` the normalized, generated column; `payment_method` is always
 * null. Customer identifiers, URLs, credentials, payloads and fees are not selected.
 */
export default class TransactionTransformer extends PortalTransformer<TransactionRow> {
  toObject(): Transaction {
    const row = this.resource
    return {
      id: Number(row.id),
      merchant_transaction_id: row.merchant_transaction_id,
      environment: row.environment,
      amount: row.amount,
      currency: row.currency,
      status: row.status,
      payment_brand: row.payment_brand,
      payment_method: null,
      created_at: row.created_at,
      updated_at: row.updated_at,
      history_available: row.history_available,
    }
  }
}
