/*
| portal-api.md › Collections: transactions and their exchange history, the endpoints
| of CollectionsController.
|
| The query parameters come from the validators the controller uses
| (#validators/collections); overrides only where a VineJS rule emits no JSON Schema.
*/
import {
  environmentOnlyInput,
  listHistoryInput,
  listTransactionsInput,
} from '#validators/collections'
import { queryParameters, type FieldOverrides } from '#openapi/json_schema'
import { ok, page, PAGINATION_DESCRIPTIONS, ref } from '#openapi/components'
import { endpointsOf, portalStack } from '#http/endpoint'
import { TIMESTAMP_PATTERN } from '#validators/rules/timestamp'

const CollectionsController = () => import('#controllers/collections_controller')

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

type Input = Parameters<typeof queryParameters>[0]

/** The overrides of the fields an input declares (no phantom parameter on a strict route). */
export function overridesFor(input: Input, overrides: FieldOverrides = COLLECTIONS_OVERRIDES) {
  const declared = (input.validator.toJSONSchema() as { properties?: object }).properties ?? {}
  return Object.fromEntries(Object.entries(overrides).filter(([name]) => name in declared))
}

const query = (input: Input) =>
  queryParameters(input, overridesFor(input), COLLECTIONS_DESCRIPTIONS)

const READ_ONLY =
  'Read-only: no payment, provider inquiry or replay happens. A transaction of the other environment is 404.'

export const collectionsEndpoints = endpointsOf(CollectionsController, {
  index: {
    method: 'get',
    path: '/api/v1/portal/collections/transactions',
    name: 'collections.transactions.index',
    stack: portalStack(),
    operationId: 'listTransactions',
    tag: 'Collections',
    summary: 'List collection transactions',
    description: `Filters combine with AND; sorted by \`created_at\` then \`id\`, both descending. Without dates every stored transaction of the environment (archived included) is listed. Unlisted query fields are rejected with 422. ${READ_ONLY}`,
    query: query(listTransactionsInput),
    responses: {
      200: { description: 'A page of transactions.', schema: page(ref('Transaction')) },
    },
    cacheControl: 'no-store',
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
    responses: {
      200: {
        description: 'The transaction.',
        schema: ok(ref('Transaction'), { message: 'Success' }),
      },
    },
    cacheControl: 'no-store',
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
    responses: {
      200: {
        description: 'A page of history items.',
        schema: page(ref('HistoryItem'), ref('HistoryMeta')),
      },
    },
    cacheControl: 'no-store',
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
    responses: { 200: { description: 'The history item.', schema: ok(ref('HistoryItem')) } },
    cacheControl: 'no-store',
  },
})
