/*
| Standard pagination (portal-api.md, Common response rules): `page` >= 1 (default 1),
| `per_page` 1-100 (default 25); null or empty values are invalid. Pages past the end
| return empty data with normal meta, however far past the end: any page up to
| 2^53 - 1 (the largest integer a JSON client reads exactly) is accepted.
*/
import vine from '@vinejs/vine'

const safeInteger = vine.createRule((value, _options, field) => {
  if (typeof value === 'string' && !Number.isSafeInteger(Number(value))) {
    field.report(
      `The ${field.name} field must be at most ${Number.MAX_SAFE_INTEGER}.`,
      'safeInteger',
      field
    )
  }
})

export const paginationFields = {
  page: vine
    .string()
    .regex(/^[1-9][0-9]{0,15}$/)
    .use(safeInteger())
    .transform((value) => Number(value))
    .optional(),
  per_page: vine
    .string()
    .regex(/^(?:[1-9][0-9]?|100)$/)
    .transform((value) => Number(value))
    .optional(),
}

export const DEFAULT_PER_PAGE = 25

export function pageOf(input: { page?: number; per_page?: number }) {
  return { page: input.page ?? 1, perPage: input.per_page ?? DEFAULT_PER_PAGE }
}
