/*
| JSON Schema (2020-12, the dialect of OpenAPI 3.1) building blocks for the
| document, and the bridge from the VineJS schemas the code validates with
| (`toJSONSchema()`) to request bodies and query parameters.
*/
import type { InputSchema } from '#validators/rules/input'

export type JsonSchema = { [keyword: string]: unknown }

export const schema = {
  string: (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra }),
  integer: (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...extra }),
  boolean: (extra: JsonSchema = {}): JsonSchema => ({ type: 'boolean', ...extra }),
  /** ISO 8601 / RFC 3339 with an explicit offset (decisions.md §2). */
  timestamp: (extra: JsonSchema = {}): JsonSchema => ({
    type: 'string',
    format: 'date-time',
    ...extra,
  }),
  /** A two-decimal amount string: money never travels as a JSON number. */
  decimal: (extra: JsonSchema = {}): JsonSchema => ({
    type: 'string',
    pattern: '^-?[0-9]+\\.[0-9]{2}$',
    ...extra,
  }),
  enum: (values: readonly (string | number)[], extra: JsonSchema = {}): JsonSchema => ({
    type: typeof values[0] === 'number' ? 'integer' : 'string',
    enum: [...values],
    ...extra,
  }),
  const: (value: string | number | boolean): JsonSchema => ({ const: value }),
  /** The schema, or null. */
  nullable(inner: JsonSchema): JsonSchema {
    if (typeof inner.type === 'string') {
      const result: JsonSchema = { ...inner, type: [inner.type, 'null'] }
      if (Array.isArray(inner.enum)) result.enum = [...inner.enum, null]
      return result
    }
    return { oneOf: [inner, { type: 'null' }] }
  },
  /** A closed object: every listed property, and only those (all required unless named). */
  object(
    properties: Record<string, JsonSchema>,
    options: { optional?: string[]; description?: string } = {}
  ): JsonSchema {
    const optional = new Set(options.optional ?? [])
    return {
      type: 'object',
      ...(options.description ? { description: options.description } : {}),
      additionalProperties: false,
      required: Object.keys(properties).filter((name) => !optional.has(name)),
      properties,
    }
  },
  array: (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
    type: 'array',
    items,
    ...extra,
  }),
  ref: (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` }),
}

/** Field-level corrections where a VineJS rule carries no JSON Schema of its own. */
export type FieldOverrides = Record<string, JsonSchema>

/**
 * The JSON Schema of an endpoint input declared with `defineInput()`: VineJS's own
 * `toJSONSchema()`, with `additionalProperties: false` only on strict endpoints
 * (the others ignore unlisted fields), and per-field overrides merged in.
 */
export function inputJsonSchema(
  input: InputSchema<any>,
  overrides: FieldOverrides = {}
): JsonSchema {
  const generated = input.validator.toJSONSchema() as JsonSchema
  const properties = { ...(generated.properties as Record<string, JsonSchema>) }
  for (const [name, override] of Object.entries(overrides)) {
    properties[name] = { ...(properties[name] ?? {}), ...override }
  }
  const result: JsonSchema = { type: 'object', properties }
  const required = (generated.required as string[] | undefined) ?? []
  if (required.length > 0) result.required = required
  if (input.strict) result.additionalProperties = false
  return result
}

/** One query parameter per property of an input schema (query strings are strings). */
export function queryParameters(
  input: InputSchema<any>,
  overrides: FieldOverrides = {},
  descriptions: Record<string, string> = {}
) {
  const json = inputJsonSchema(input, overrides)
  const required = new Set((json.required as string[] | undefined) ?? [])
  return Object.entries(json.properties as Record<string, JsonSchema>).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(descriptions[name] ? { description: descriptions[name] } : {}),
    schema: property,
  }))
}
