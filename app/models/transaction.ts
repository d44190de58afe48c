import { TransactionSchema } from '#database/schema'

/** A collection transaction (portal-api.md › Transaction); `status` is generated in SQL. */
export default class Transaction extends TransactionSchema {}
