/*
| portal-api.md › Collections: the query strings of the transaction list, the
| transaction detail and the two history routes. Every route here is strict: an
| unlisted query field (pagination on a detail route included) is a 422 on its name.
| Repeated parameters (`?status=PAID&status=PAID`) arrive as arrays and fail the
| string rules: 422, never a 500.
*/
import vine from '@vinejs/vine'
import { defineInput } from '#validators/rules/input'
import { textOfLength } from '#validators/rules/text_length'
import { paginationFields } from '#validators/rules/pagination'
import { environmentField } from '#validators/rules/environment'
import { timestampField } from '#validators/rules/timestamp'
import { TRANSACTION_STATUSES } from '#models/transaction_status'
import ApiError from '#exceptions/api_error'

const text100 = () => textOfLength(1, 100)

/** GET /portal/collections/transactions */
export const listTransactionsInput = defineInput(
  {
    environment: environmentField(),
    from: timestampField().optional().requiredIfExists('to'),
    to: timestampField().optional().requiredIfExists('from'),
    status: vine.enum(TRANSACTION_STATUSES).optional(),
    merchant_transaction_id: text100().optional(),
    query: text100().optional(),
    currency: vine
      .string()
      .regex(/^[A-Z]{3}$/)
      .optional(),
    payment_brand: text100().optional(),
    ...paginationFields,
  },
  { strict: true }
)

/** GET /portal/collections/transactions/{transaction} and .../history/{history} */
export const environmentOnlyInput = defineInput(
  { environment: environmentField() },
  { strict: true }
)

/** GET /portal/collections/transactions/{transaction}/history */
export const listHistoryInput = defineInput(
  { environment: environmentField(), ...paginationFields },
  { strict: true }
)

/** `from` < `to` (both already in the timestamp grammar): else a 422 on `to`. */
export function requireOrderedRange(input: {
  from?: { epochMicros: bigint }
  to?: { epochMicros: bigint }
}) {
  if (input.from && input.to && input.from.epochMicros >= input.to.epochMicros) {
    throw ApiError.field('to', 'The to field must be after from.')
  }
}
