/*
| Field corrections shared by several areas, where a VineJS rule's JSON Schema is
| incomplete: VineJS keeps only the last `.regex()` of a chain, so the password
| composition rules are restated as one pattern here.
*/
import type { JsonSchema } from '#openapi/json_schema'

export const NEW_PASSWORD: JsonSchema = {
  type: 'string',
  minLength: 12,
  maxLength: 128,
  pattern: '^(?=[\\s\\S]*[A-Z])(?=[\\s\\S]*[a-z])(?=[\\s\\S]*[0-9])(?=[\\s\\S]*[^A-Za-z0-9])',
  description:
    '12-128 characters with an upper-case letter, a lower-case letter, a digit and a symbol; `password_confirmation` must be identical (not trimmed).',
}

export const PAGINATION_DESCRIPTIONS = {
  page: 'Page number, a canonical integer >= 1 (default 1). Empty or null is invalid; a page past the end is 200 with empty `data`.',
  per_page: 'Items per page, 1-100 (default 25). Empty or null is invalid.',
}
