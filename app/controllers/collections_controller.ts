import type { HttpContext } from '@adonisjs/core/http'
import type { UserActor } from '#auth/actor'
import type { InputValue, PageRequest } from '#http/endpoint'
import { listTransactions } from '#services/collections/transactions/list_transactions'
import { showTransaction } from '#services/collections/transactions/show_transaction'
import {
  listTransactionHistory,
  showHistoryItem,
} from '#services/collections/history/transaction_history'
import type { collectionsEndpoints as endpoints } from '#controllers/collections_endpoints'

/**
 * portal-api.md › Collections (transactions and history), both roles, read-only.
 * Query first (unlisted fields and a missing or invalid environment are 422), then
 * the resource (another merchant's, the other environment's or an unknown id is
 * 404), then the operation on the read connection.
 */
export default class CollectionsController {
  /** GET /portal/collections/transactions (the catalogue checks `currency` beside it) */
  async index(
    input: InputValue<typeof endpoints.index>,
    actor: UserActor,
    _ctx: HttpContext,
    page: PageRequest
  ) {
    return listTransactions(actor, input, page)
  }

  /** GET /portal/collections/transactions/{transaction} */
  async show(input: InputValue<typeof endpoints.show>, actor: UserActor, ctx: HttpContext) {
    return showTransaction(actor, String(ctx.params.transaction), input.environment)
  }

  /** GET /portal/collections/transactions/{transaction}/history */
  async history(
    input: InputValue<typeof endpoints.history>,
    actor: UserActor,
    ctx: HttpContext,
    { page, perPage }: PageRequest
  ) {
    return listTransactionHistory(actor, String(ctx.params.transaction), {
      environment: input.environment,
      page,
      perPage,
    })
  }

  /** GET /portal/collections/transactions/{transaction}/history/{history} */
  async historyItem(
    input: InputValue<typeof endpoints.historyItem>,
    actor: UserActor,
    ctx: HttpContext
  ) {
    return showHistoryItem(
      actor,
      String(ctx.params.transaction),
      String(ctx.params.history),
      input.environment
    )
  }
}
