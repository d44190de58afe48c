/*
| Standard pagination (portal-api.md, Common response rules): `page` >= 1 (default 1),
| `per_page` 1-100 (default 25); null or empty values are invalid. Pages past the end
| return empty data with normal meta, however far past the end: any page up to
| 2^53 - 1 (the largest integer a JSON client reads exactly) is accepted.
*/
import vine from '@vinejs/vine'
import { DECIMAL_ID } from '#support/decimal_id'

/**
 * A query integer from `min` to `max` written as `canonical` (digits only, no sign, no
 * leading zero), becoming a number. One message says the whole rule.
 */
const integerBetween = vine.createRule<{ min: number; max: number; canonical: RegExp }>(
  (value, { min, max, canonical }, field) => {
    if (typeof value !== 'string') return
    const number = Number(value)
    if (!canonical.test(value) || number < min || number > max) {
      field.report(
        `The ${field.name} field must be an integer from ${min} to ${max}.`,
        'integerBetween',
        field
      )
    }
  },
  {
    toJSONSchema: (schema, { canonical }) => {
      schema.pattern = canonical.source
    },
  }
)

const queryInteger = (options: { min: number; max: number; canonical: RegExp }) =>
  vine
    .string()
    .use(integerBetween(options))
    .transform((value) => Number(value))
    .optional()

export const paginationFields = {
  // 16 digits hold 2^53 - 1; the bound itself is checked as a number.
  page: queryInteger({ min: 1, max: Number.MAX_SAFE_INTEGER, canonical: DECIMAL_ID }),
  per_page: queryInteger({ min: 1, max: 100, canonical: /^(?:[1-9][0-9]?|100)$/ }),
}

export const DEFAULT_PER_PAGE = 25

export function pageOf(input: { page?: number; per_page?: number }) {
  return { page: input.page ?? 1, perPage: input.per_page ?? DEFAULT_PER_PAGE }
}
