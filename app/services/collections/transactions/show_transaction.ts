/*
| GET /portal/collections/transactions/{transaction} (portal-api.md › Collections):
| one transaction of the actor's merchant in the requested environment. Another
| merchant's, the other environment's, or an unknown id are all 404 NOT_FOUND.
*/
import type { UserActor } from '#auth/actor'
import type { Environment } from '#models/collections_vocabulary'
import ApiError from '#exceptions/api_error'
import { readConnection } from '#support/read_connection'
import { statementQuery } from '#platform/direct_query'
import { TRANSACTION_COLUMNS } from '#services/collections/transactions/transaction_rows'
import type { TransactionRow } from '#services/collections/transactions/transaction_rows'

export function showTransactionQuery(
  merchantId: number,
  transactionId: string,
  environment: Environment
) {
  return {
    sql: `SELECT ${TRANSACTION_COLUMNS} FROM transactions t
     WHERE t.id = ? AND t.merchant_id = ? AND t.environment = ?`,
    bindings: [transactionId, merchantId, environment],
  }
}

export async function showTransaction(
  actor: UserActor,
  transactionId: string,
  environment: Environment
): Promise<TransactionRow> {
  const [row] = await statementQuery<TransactionRow>(
    readConnection(),
    showTransactionQuery(actor.merchantId, transactionId, environment),
    { prepare: true }
  )
  if (!row) throw ApiError.notFound()
  return row
}
