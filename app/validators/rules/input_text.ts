/*
| Text as request input must be, before any field rule runs: strings trimmed (except
| passwords and integration key values), and no NUL or lone surrogate anywhere (a
| field error, never a 500). rules/input.ts applies both to every input.
*/
import { isPlainObject } from '#support/plain_object'

export const UNTRIMMED_FIELDS = new Set([
  'password',
  'password_confirmation',
  'current_password',
  'value',
])

export function trimStrings(value: unknown, key?: string): unknown {
  if (typeof value === 'string')
    return key !== undefined && UNTRIMMED_FIELDS.has(key) ? value : value.trim()
  if (Array.isArray(value)) return value.map((item) => trimStrings(item))
  if (isPlainObject(value)) {
    const result: Record<string, unknown> = {}
    // defineProperty: a `__proto__` key stays an own field instead of becoming a prototype.
    for (const [name, item] of Object.entries(value)) {
      Object.defineProperty(result, name, {
        value: trimStrings(item, name),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
    return result
  }
  return value
}

// NUL, which PostgreSQL text cannot store or compare, and a lone UTF-16 surrogate
// (not text at all; VineJS's email rule throws a URIError on one).
const NUL = '\\u0000'
const INVALID_TEXT = new RegExp(`[${NUL}\\p{Cs}]`, 'u')

/**
 * The refusal of NUL as the OpenAPI document states it on every string of every
 * input (app/openapi/json_schema.ts), a schema the value must `not` match. (A lone
 * surrogate cannot be written in a pattern every client reads alike; the document's
 * description says it in words.)
 */
export const CONTAINS_NUL = {
  type: 'string',
  pattern: NUL,
  description: 'Text containing U+0000 (NUL) is refused (422).',
} as const

/**
 * Field paths (dot notation) of strings holding a NUL character or a lone
 * surrogate: such input is a field error, never a 500.
 */
export function fieldsWithInvalidText(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return INVALID_TEXT.test(value) ? [path || 'body'] : []
  if (Array.isArray(value) || isPlainObject(value)) {
    return Object.entries(value).flatMap(([name, item]) =>
      fieldsWithInvalidText(item, path ? `${path}.${name}` : name)
    )
  }
  return []
}
