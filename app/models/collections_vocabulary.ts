/*
| The values and patterns of the collections resources, each defined once: the
| validators, the import, the history projection, the response schemas and the SQL
| that need one of them import it from here.
*/

/** portal-api.md › Transaction, Collections: `test` or `live`, case-sensitive. */
export const ENVIRONMENTS = ['test', 'live'] as const
export type Environment = (typeof ENVIRONMENTS)[number]

/** portal-api.md › States and transitions › Merchant webhook delivery state. */
export const DELIVERY_STATES = [
  'pending',
  'delivering',
  'delivered',
  'failed',
  'exhausted',
] as const
export type DeliveryState = (typeof DELIVERY_STATES)[number]
