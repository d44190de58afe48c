/*
| Standard pagination (portal-api.md, Common response rules): `page` >= 1 (default 1),
| `per_page` 1-100 (default 25); null or empty values are invalid. Pages past the end
| return empty data with normal meta, however far past the end: any page up to
| 2^53 - 1 (the largest integer a JSON client reads exactly) is accepted.
*/
import vine from '@vinejs/vine'
import { positiveIntegerUpTo } from '#validators/rules/integer_range'

/** The largest `page`: the largest integer a JSON client reads exactly. */
export const MAX_PAGE = Number.MAX_SAFE_INTEGER
export const MAX_PER_PAGE = 100

/**
 * A query integer from 1 to `max` written canonically (digits only, no sign, no
 * leading zero), becoming a number. The rule is one expression (integer_range.ts),
 * which the document publishes as the parameter's `pattern`. One message says it.
 */
const integerUpTo = vine.createRule<{ max: number; canonical: RegExp }>(
  (value, { max, canonical }, field) => {
    if (typeof value === 'string' && !canonical.test(value)) {
      field.report(
        `The ${field.name} field must be an integer from 1 to ${max}.`,
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

const queryInteger = (max: number) =>
  vine
    .string()
    .use(integerUpTo({ max, canonical: positiveIntegerUpTo(max) }))
    .transform((value) => Number(value))
    .optional()

export const paginationFields = {
  page: queryInteger(MAX_PAGE),
  per_page: queryInteger(MAX_PER_PAGE),
}

export const DEFAULT_PER_PAGE = 25

export function pageOf(input: { page?: number; per_page?: number }) {
  return { page: input.page ?? 1, perPage: input.per_page ?? DEFAULT_PER_PAGE }
}
