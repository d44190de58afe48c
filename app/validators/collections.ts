/*
| portal-api.md › Collections: the query strings of the transaction list, the
| transaction detail and the two history routes. Every route here is strict: an
| unlisted query field (pagination on a detail route included) is a 422 on its name.
| Repeated parameters (`?status=PAID&status=PAID`) arrive as arrays and fail the
| string rules: 422, never a 500. `from` < `to` is checked whenever both are valid
| timestamps, so it is reported together with any other field that fails.
*/
import vine from '@vinejs/vine'
import { defineInput } from '#validators/rules/input'
import { textOfLength } from '#validators/rules/text_length'
import { paginationFields } from '#validators/rules/pagination'
import { environmentField } from '#validators/rules/environment'
import { timestampField, type Timestamp } from '#validators/rules/timestamp'
import { currencyField } from '#validators/rules/currency'
import { TRANSACTION_STATUSES } from '#models/collections_vocabulary'
import type { FieldErrors } from '#exceptions/api_error'

const text100 = () => textOfLength(1, 100)

/** Optional, but required when `other` is given (a range has both bounds or neither). */
const requiredWith = vine.createRule<string>(
  (_value, other, field) => {
    const given = field.parent?.[other]
    if (!field.isDefined && given !== undefined && given !== null) {
      field.report(
        `The ${field.name} field is required when ${other} is given.`,
        'requiredWith',
        field
      )
    }
  },
  { implicit: true }
)

/** `from` < `to` (both valid timestamps), else a 422 on `to`. */
export function requireOrderedRange(
  input: { from?: Timestamp; to?: Timestamp },
  errors: FieldErrors
) {
  if (input.from && input.to && input.from.epochMicros >= input.to.epochMicros) {
    ;(errors.to ??= []).push('The to field must be after from.')
  }
}

/** GET /portal/collections/transactions */
export const listTransactionsInput = defineInput(
  {
    environment: environmentField(),
    from: timestampField().optional().use(requiredWith('to')),
    to: timestampField().optional().use(requiredWith('from')),
    status: vine.enum(TRANSACTION_STATUSES).optional(),
    merchant_transaction_id: text100().optional(),
    query: text100().optional(),
    currency: currencyField().optional(),
    payment_brand: text100().optional(),
    ...paginationFields,
  },
  { strict: true, crossField: { reads: ['from', 'to'], check: requireOrderedRange } }
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
