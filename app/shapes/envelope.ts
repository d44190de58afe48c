/*
| The shared parts of the envelope (decisions.md §1): a list's `meta` and the field
| errors of a 422.
*/
import { schema, type Static } from '#openapi/json_schema'
import { MAX_PAGE, MAX_PER_PAGE } from '#validators/rules/pagination'

/** The fields of every list's `meta`; a list may add its own after them. */
export const PAGE_META_FIELDS = {
  current_page: schema.integer({ minimum: 1, maximum: MAX_PAGE }),
  per_page: schema.integer({ minimum: 1, maximum: MAX_PER_PAGE }),
  total: schema.integer({ minimum: 0 }),
  last_page: schema.integer({ minimum: 1 }),
}

export const PageMeta = schema.object(PAGE_META_FIELDS)
export type PageMeta = Static<typeof PageMeta>

export const FieldErrors = schema.typed<Record<string, string[]>>({
  type: 'object',
  description:
    'Field path (dot notation) → non-empty list of messages. Unlisted fields rejected by a strict endpoint appear under their own name; `body` names the body as a whole.',
  minProperties: 1,
  additionalProperties: schema.array(schema.string(), { minItems: 1 }),
})

/** Components of the document, in its order. */
export const envelopeSchemas = { PageMeta, FieldErrors }
