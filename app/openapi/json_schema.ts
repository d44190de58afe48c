/*
| JSON Schema (2020-12, the dialect of OpenAPI 3.1) building blocks for the
| document, and the bridge from the VineJS schemas the code validates with
| (`toJSONSchema()`) to request bodies and query parameters.
|
| Each builder's result also carries the TypeScript type of the values it describes
| (`Static<typeof shape>`), so a response shape (app/shapes/) is written once and its
| transformer is checked against it. Hand-written rather than TypeBox: TypeBox lays out
| objects and nullables differently, which would change the published document.
*/
import type { InputSchema } from '#validators/rules/input'
import { CONTAINS_NUL } from '#validators/rules/input_text'

export type JsonSchema = { [keyword: string]: unknown }

// Never set at run time: it only lets the compiler carry a schema's value type.
declare const VALUE: unique symbol

/**
 * A JSON Schema that also carries, for the compiler only, the TypeScript type of the
 * values it describes: a response shape is declared once and its type derived from it.
 */
export type Schema<T> = JsonSchema & { readonly [VALUE]?: T }

/** The TypeScript type of the values a schema describes (`unknown` for a plain one). */
export type Static<S> = S extends Schema<infer T> ? T : never

// Shows an object type's fields in compiler messages rather than an intersection.
type Flatten<T> = T extends object ? { [K in keyof T]: T[K] } : never

type ObjectValue<P extends Record<string, JsonSchema>, Optional extends keyof P> = Flatten<
  { -readonly [K in Exclude<keyof P, Optional>]: Static<P[K]> } & {
    -readonly [K in Optional]?: Static<P[K]>
  }
>

export const schema = {
  string: (extra: JsonSchema = {}): Schema<string> => ({ type: 'string', ...extra }),
  integer: (extra: JsonSchema = {}): Schema<number> => ({ type: 'integer', ...extra }),
  boolean: (extra: JsonSchema = {}): Schema<boolean> => ({ type: 'boolean', ...extra }),
  null: (extra: JsonSchema = {}): Schema<null> => ({ type: 'null', ...extra }),
  /** ISO 8601 / RFC 3339 with an explicit offset (decisions.md §2). */
  timestamp: (extra: JsonSchema = {}): Schema<string> => ({
    type: 'string',
    format: 'date-time',
    ...extra,
  }),
  /** A two-decimal amount string: money never travels as a JSON number. */
  decimal: (extra: JsonSchema = {}): Schema<string> => ({
    type: 'string',
    pattern: '^-?[0-9]+\\.[0-9]{2}$',
    ...extra,
  }),
  enum: <const Value extends string | number>(
    values: readonly Value[],
    extra: JsonSchema = {}
  ): Schema<Value> => ({
    type: typeof values[0] === 'number' ? 'integer' : 'string',
    enum: [...values],
    ...extra,
  }),
  const: <const Value extends string | number | boolean>(value: Value): Schema<Value> => ({
    const: value,
  }),
  /** The schema, or null. */
  nullable<T>(inner: Schema<T>): Schema<T | null> {
    if (typeof inner.type === 'string') {
      const result: JsonSchema = { ...inner, type: [inner.type, 'null'] }
      if (Array.isArray(inner.enum)) result.enum = [...inner.enum, null]
      return result
    }
    return { oneOf: [inner, { type: 'null' }] }
  },
  /** A closed object: every listed property, and only those (all required unless named). */
  object<P extends Record<string, JsonSchema>, Optional extends keyof P & string = never>(
    properties: P,
    options: { optional?: readonly Optional[]; description?: string } = {}
  ): Schema<ObjectValue<P, Optional>> {
    const optional = new Set<string>(options.optional ?? [])
    return {
      type: 'object',
      ...(options.description ? { description: options.description } : {}),
      additionalProperties: false,
      required: Object.keys(properties).filter((name) => !optional.has(name)),
      properties,
    }
  },
  array: <T>(items: Schema<T>, extra: JsonSchema = {}): Schema<T[]> => ({
    type: 'array',
    items,
    ...extra,
  }),
  /**
   * `$ref` to a component, given as `{ Name }`: the variable's name is the key the
   * component is registered under (app/openapi/components.ts › componentSchemas), so a
   * misspelt one does not compile, and the result has the component's type. Outside
   * app/shapes, `ref('Name')` of components.ts also checks that the name is registered.
   */
  ref<const Name extends string, T>(component: { [K in Name]: Schema<T> }): Schema<T> {
    const names = Object.keys(component)
    if (names.length !== 1) throw new Error('schema.ref takes one component, as { Name }')
    return { $ref: `#/components/schemas/${names[0]}` }
  },
  /** A schema the builders above cannot express, with the type of its values stated. */
  typed: <T>(json: JsonSchema): Schema<T> => json,
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
  for (const [name, property] of Object.entries(properties)) {
    properties[name] = refusingNul(property)
  }
  const result: JsonSchema = { type: 'object', properties }
  const required = (generated.required as string[] | undefined) ?? []
  if (required.length > 0) result.required = required
  if (input.strict) result.additionalProperties = false
  return result
}

/**
 * Every string of an input refuses NUL (app/validators/rules/input_text.ts, applied to
 * every input before its rules): the schema, with each string in it saying so.
 */
function refusingNul(node: JsonSchema): JsonSchema {
  const types = Array.isArray(node.type) ? node.type : [node.type]
  const result: JsonSchema = types.includes('string') ? { ...node, not: CONTAINS_NUL } : { ...node }
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = node[keyword]
    if (Array.isArray(branches)) result[keyword] = branches.map((branch) => refusingNul(branch))
  }
  if (node.items && typeof node.items === 'object')
    result.items = refusingNul(node.items as JsonSchema)
  if (node.properties && typeof node.properties === 'object') {
    result.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, JsonSchema>).map(([name, property]) => [
        name,
        refusingNul(property),
      ])
    )
  }
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
