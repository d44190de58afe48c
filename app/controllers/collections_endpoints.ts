/*
| portal-api.md › Collections: transactions and their exchange history, the endpoints
| of CollectionsController.
|
| The query parameters are documented from the validators the routes validate with
| (#validators/collections); overrides only where a VineJS rule emits no JSON Schema.
*/
import {
  environmentOnlyInput,
  listHistoryInput,
  listTransactionsInput,
} from '#validators/collections'
import type { FieldOverrides } from '#openapi/json_schema'
import { PAGINATION_DESCRIPTIONS, ref } from '#openapi/components'
import type { InputSchema } from '#validators/rules/input'
import { requireSupportedCurrency } from '#services/collections/transactions/currency_catalogue'
import TransactionTransformer from '#transformers/transaction_transformer'
import { endpointsOf } from '#http/endpoint'
import { portalStack } from '#http/stacks'
import { TIMESTAMP_PATTERN } from '#validators/rules/timestamp'

/** Corrections of fields whose VineJS rule carries no JSON Schema (the timestamp grammar). */
export const COLLECTIONS_OVERRIDES: FieldOverrides = {
  from: { format: 'date-time', pattern: TIMESTAMP_PATTERN },
  to: { format: 'date-time', pattern: TIMESTAMP_PATTERN },
}

export const COLLECTIONS_DESCRIPTIONS: Record<string, string> = {
  ...PAGINATION_DESCRIPTIONS,
  environment: '`test` or `live` (case-sensitive). Missing or invalid: 422.',
  from: '`YYYY-MM-DDTHH:mm:ss[.ffffff]` then `Z` or `±HH:MM` (offset up to 14:00); a real date, nonzero year. With `to`: both or neither, `from` < `to`; creation time in [from, to).',
  to: 'Exclusive upper bound; same grammar as `from`.',
  status: 'Normalized status.',
  merchant_transaction_id: 'Exact match.',
  query: 'Substring of the merchant reference (`%`, `_`, `!` are literal).',
  currency:
    'Three upper-case letters in the supported currency catalogue (422 unsupported; 503 `SERVICE_UNAVAILABLE` when the catalogue is unreadable).',
  payment_brand: 'Exact match.',
}

/**
 * Only currency-filtered reads consult the catalogue (422 unsupported, 503
 * unreadable), read on every such request (never cached) but concurrently with the
 * validation and the operation: nothing is answered from a read whose currency the
 * catalogue refuses or could not check.
 */
export const checkCurrency = (code: string) => requireSupportedCurrency('currency', code)

/** The overrides of the fields an input declares (no phantom parameter on a strict route). */
function overridesFor(input: InputSchema<any>) {
  const declared = (input.validator.toJSONSchema() as { properties?: object }).properties ?? {}
  return Object.fromEntries(
    Object.entries(COLLECTIONS_OVERRIDES).filter(([name]) => name in declared)
  )
}

const query = <Input extends InputSchema<any>>(input: Input) => ({
  input,
  overrides: overridesFor(input),
  descriptions: COLLECTIONS_DESCRIPTIONS,
})

const READ_ONLY =
  'Read-only: no payment, provider inquiry or replay happens. A transaction of the other environment is 404.'

export const collectionsEndpoints = endpointsOf({
  index: {
    method: 'get',
    path: '/api/v1/portal/collections/transactions',
    name: 'collections.transactions.index',
    stack: portalStack(),
    operationId: 'listTransactions',
    tag: 'Collections',
    summary: 'List collection transactions',
    description: `Filters combine with AND; sorted by \`created_at\` then \`id\`, both descending. Without dates every stored transaction of the environment (archived included) is listed. Unlisted query fields are rejected with 422. ${READ_ONLY}`,
    query: { ...query(listTransactionsInput), catalogue: checkCurrency },
    response: {
      description: 'A page of transactions.',
      list: {},
      data: ref('Transaction'),
      transformer: TransactionTransformer,
      message: 'Success',
    },
  },
  show: {
    method: 'get',
    path: '/api/v1/portal/collections/transactions/:transaction',
    name: 'collections.transactions.show',
    stack: portalStack(),
    operationId: 'getTransaction',
    tag: 'Collections',
    summary: 'Read one transaction',
    description: `Query \`environment\` only. ${READ_ONLY}`,
    query: query(environmentOnlyInput),
    response: {
      description: 'The transaction.',
      data: ref('Transaction'),
      transformer: TransactionTransformer,
      message: 'Success',
    },
  },
  history: {
    method: 'get',
    path: '/api/v1/portal/collections/transactions/:transaction/history',
    name: 'collections.history.index',
    stack: portalStack(),
    operationId: 'listTransactionHistory',
    tag: 'Collections',
    summary: "List a transaction's exchange history",
    description:
      'Chronological (captured_at, then ULID ascending). `meta.coverage` is computed over the whole scoped history. A known transaction without permitted captures returns `data: []`. History is never truncated or backfilled; purged items have a null payload and `purged_at` set. Every read is audited; an audit failure is 500.',
    query: query(listHistoryInput),
    // Items as the history projection made them (app/services/collections/history).
    response: {
      description: 'A page of history items.',
      list: { meta: ref('HistoryMeta'), carries: ['coverage'] },
      data: ref('HistoryItem'),
      message: 'Success',
    },
  },
  historyItem: {
    method: 'get',
    path: '/api/v1/portal/collections/transactions/:transaction/history/:history',
    name: 'collections.history.show',
    stack: portalStack(),
    operationId: 'getTransactionHistoryItem',
    tag: 'Collections',
    summary: 'Read one history item',
    description:
      'Query `environment` only (pagination is rejected). Unknown, cross-merchant, cross-environment or other-transaction ids: 404. The read is audited; an audit failure is 500.',
    query: query(environmentOnlyInput),
    response: { description: 'The history item.', data: ref('HistoryItem'), message: 'Success' },
  },
})
