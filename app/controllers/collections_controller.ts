import type { HttpContext } from '@adonisjs/core/http'
import { pageMeta, respond } from '#http/responses'
import { validateQuery, validateQueryWithCatalogue } from '#http/request_input'
import { pageOf } from '#validators/rules/pagination'
import {
  environmentOnlyInput,
  listHistoryInput,
  listTransactionsInput,
} from '#validators/collections'
import { afterCatalogue } from '#validators/rules/currency'
import { requireSupportedCurrency } from '#services/collections/transactions/currency_catalogue'
import { listTransactions } from '#services/collections/transactions/list_transactions'
import { showTransaction } from '#services/collections/transactions/show_transaction'
import {
  listTransactionHistory,
  showHistoryItem,
} from '#services/collections/history/transaction_history'
import TransactionTransformer from '#transformers/transaction_transformer'
import HistoryItemTransformer from '#transformers/history_item_transformer'
import type { HistoryMeta } from '#shapes/collections'

/**
 * portal-api.md › Collections (transactions and history), both roles, read-only.
 * Query first (unlisted fields and a missing or invalid environment are 422), then
 * the resource (another merchant's, the other environment's or an unknown id is
 * 404), then the operation on the read connection.
 */
export default class CollectionsController {
  /** GET /portal/collections/transactions */
  async index(ctx: HttpContext) {
    // Only currency-filtered reads consult the catalogue (422 unsupported, 503
    // unreadable), read on every such request (never cached) but concurrently with the
    // validation and the list: nothing is answered from a list whose currency the
    // catalogue refuses or could not check.
    const { input, catalogue } = await validateQueryWithCatalogue(
      ctx,
      listTransactionsInput,
      (code) => requireSupportedCurrency('currency', code)
    )
    const { page, perPage } = pageOf(input)
    const list = await afterCatalogue(
      catalogue,
      listTransactions(ctx.actor!, input, { page, perPage })
    )
    return respond(ctx, 'Success', TransactionTransformer.transform(list.items), {
      meta: { ...pageMeta(page, perPage, list.total) },
    })
  }

  /** GET /portal/collections/transactions/{transaction} */
  async show(ctx: HttpContext) {
    const input = await validateQuery(ctx, environmentOnlyInput)
    const row = await showTransaction(ctx.actor!, String(ctx.params.transaction), input.environment)
    return respond(ctx, 'Success', TransactionTransformer.transform(row))
  }

  /** GET /portal/collections/transactions/{transaction}/history */
  async history(ctx: HttpContext) {
    const input = await validateQuery(ctx, listHistoryInput)
    const { page, perPage } = pageOf(input)
    const history = await listTransactionHistory(ctx.actor!, String(ctx.params.transaction), {
      environment: input.environment,
      page,
      perPage,
    })
    return respond(ctx, 'Success', HistoryItemTransformer.transform(history.items), {
      meta: {
        ...pageMeta(page, perPage, history.total),
        coverage: history.coverage,
      } satisfies HistoryMeta,
    })
  }

  /** GET /portal/collections/transactions/{transaction}/history/{history} */
  async historyItem(ctx: HttpContext) {
    const input = await validateQuery(ctx, environmentOnlyInput)
    const item = await showHistoryItem(
      ctx.actor!,
      String(ctx.params.transaction),
      String(ctx.params.history),
      input.environment
    )
    return respond(ctx, 'Success', HistoryItemTransformer.transform(item))
  }
}
