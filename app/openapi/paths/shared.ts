/*
| Field descriptions shared by several areas. The new-password schema (bounds and the
| composition pattern) comes from its rule (app/validators/rules/password_policy.ts).
*/
import type { JsonSchema } from '#openapi/json_schema'

export const NEW_PASSWORD: JsonSchema = {
  description:
    '12-128 characters with an upper-case letter, a lower-case letter, a digit and a symbol; `password_confirmation` must be identical (not trimmed).',
}

export const PAGINATION_DESCRIPTIONS = {
  page: 'Page number, a canonical integer >= 1 (default 1). Empty or null is invalid; a page past the end is 200 with empty `data`.',
  per_page: 'Items per page, 1-100 (default 25). Empty or null is invalid.',
}
