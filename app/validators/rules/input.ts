/*
| How request input reaches validators, in one place:
| - strings are trimmed, except passwords and integration key values;
| - a strict endpoint rejects any field it does not list (422 on that field's name),
|   because VineJS would otherwise drop unknown fields silently;
| - a body must be a JSON object; validator errors and unlisted fields are reported
|   together.
*/
import type { HttpContext } from '@adonisjs/core/http'
import vine, { errors as vineErrors } from '@vinejs/vine'
import type { SchemaTypes } from '@vinejs/vine/types'
import ApiError, { type FieldErrors } from '#exceptions/api_error'
import { ensureBodyDepth } from '#http/body_depth'

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
// eslint-disable-next-line no-control-regex -- NUL is exactly what is refused
const INVALID_TEXT = /[\u0000\p{Cs}]/u

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

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

export interface InputSchema<Properties extends Record<string, SchemaTypes>> {
  properties: Properties
  strict: boolean
  validator: ReturnType<typeof compile<Properties>>
}

function compile<Properties extends Record<string, SchemaTypes>>(properties: Properties) {
  return vine.create(vine.object(properties))
}

/** An endpoint's input: its listed fields, and whether unlisted ones are rejected. */
export function defineInput<Properties extends Record<string, SchemaTypes>>(
  properties: Properties,
  options: { strict: boolean }
): InputSchema<Properties> {
  return { properties, strict: options.strict, validator: compile(properties) }
}

export async function validateInput<Properties extends Record<string, SchemaTypes>>(
  raw: unknown,
  schema: InputSchema<Properties>
) {
  if (raw === undefined || raw === null || raw === '') raw = {}
  if (!isPlainObject(raw)) {
    throw ApiError.field('body', 'The request body must be a JSON object.')
  }
  // Bounded before any recursive walk below (issue 9 › 1).
  ensureBodyDepth(raw)
  const input = trimStrings(raw) as Record<string, unknown>
  // No prototype: field names such as `constructor` or `__proto__` are plain keys here.
  const fieldErrors: FieldErrors = Object.create(null)
  for (const field of fieldsWithInvalidText(input)) {
    const listed = Object.hasOwn(schema.properties, field.split('.')[0])
    if (listed) (fieldErrors[field] ??= []).push('The value contains an invalid character.')
  }
  let data: Awaited<ReturnType<InputSchema<Properties>['validator']['validate']>> | undefined
  try {
    if (Object.keys(fieldErrors).length === 0) data = await schema.validator.validate(input)
  } catch (error) {
    if (!(error instanceof vineErrors.E_VALIDATION_ERROR)) throw error
    for (const message of error.messages as Array<{ field: string; message: string }>) {
      ;(fieldErrors[message.field || 'body'] ??= []).push(message.message)
    }
  }
  if (schema.strict) {
    for (const name of Object.keys(input)) {
      if (!Object.hasOwn(schema.properties, name)) {
        ;(fieldErrors[name] ??= []).push(`The ${name} field is not allowed.`)
      }
    }
  }
  if (Object.keys(fieldErrors).length > 0 || data === undefined)
    throw ApiError.validation(fieldErrors)
  return data
}

export function validateBody<Properties extends Record<string, SchemaTypes>>(
  ctx: HttpContext,
  schema: InputSchema<Properties>
) {
  const body = ctx.request.body()
  const dropped = schema.strict ? droppedBodyFields(ctx, body) : []
  return withDroppedFields(validateInput(body, schema), dropped, schema)
}

/**
 * Top-level body fields the JSON parser removed before a strict check could see them
 * (it drops `__proto__`, and `constructor` holding a `prototype`, against prototype
 * pollution): read again from the raw text, only when it could hold one.
 */
function droppedBodyFields(ctx: HttpContext, body: unknown): string[] {
  const raw = ctx.request.raw()
  if (!raw || !isPlainObject(body) || !/proto|constructor|\\u/.test(raw)) return []
  let reparsed: unknown
  try {
    reparsed = JSON.parse(raw)
  } catch {
    return []
  }
  if (!isPlainObject(reparsed)) return []
  return Object.keys(reparsed).filter((name) => !Object.hasOwn(body, name))
}

/**
 * Validates a body together with field errors found before validation (nulls that
 * VineJS's optional() would drop, a body naming no field): one 422 carries both sets.
 * `afterValid` may add errors that depend on the validated input.
 */
export async function validateBodyWithPrechecks<Properties extends Record<string, SchemaTypes>>(
  ctx: HttpContext,
  schema: InputSchema<Properties>,
  errors: FieldErrors,
  afterValid?: (input: Awaited<ReturnType<typeof validateInput<Properties>>>) => void
) {
  try {
    const input = await validateBody(ctx, schema)
    afterValid?.(input)
    if (Object.keys(errors).length > 0) throw ApiError.validation(errors)
    return input
  } catch (error) {
    if (error instanceof ApiError && error.status === 422 && Object.keys(errors).length > 0) {
      throw ApiError.validation({ ...error.fieldErrors, ...errors })
    }
    throw error
  }
}

export function validateQuery<Properties extends Record<string, SchemaTypes>>(
  ctx: HttpContext,
  schema: InputSchema<Properties>
) {
  const parsed = ctx.request.qs()
  const dropped = schema.strict ? droppedQueryFields(ctx, parsed) : []
  return withDroppedFields(validateInput(parsed, schema), dropped, schema)
}

/** A validation's outcome, with fields the parser dropped reported beside its errors. */
async function withDroppedFields<Data>(
  validation: Promise<Data>,
  dropped: string[],
  schema: InputSchema<any>
): Promise<Data> {
  try {
    const data = await validation
    if (dropped.length > 0) throw ApiError.validation(droppedErrors(dropped, schema))
    return data
  } catch (error) {
    if (dropped.length > 0 && error instanceof ApiError && error.status === 422) {
      throw ApiError.validation({ ...error.fieldErrors, ...droppedErrors(dropped, schema) })
    }
    throw error
  }
}

function droppedErrors(names: string[], schema: InputSchema<any>): FieldErrors {
  const errors: FieldErrors = Object.create(null)
  for (const name of names) {
    errors[name] = [
      Object.hasOwn(schema.properties, name)
        ? `The ${name} field comes after too many query parameters to be read.`
        : `The ${name} field is not allowed.`,
    ]
  }
  return errors
}

/**
 * Query fields the qs parser drops before a strict check could see them: names of
 * Object.prototype members (`constructor`, `__proto__`, `toString`...) and every
 * parameter past its 1,000th. Read from the raw query string, a field's name being
 * its key up to the first `[` (as qs reads `name[...]`).
 */
function droppedQueryFields(ctx: HttpContext, parsed: Record<string, unknown>): string[] {
  const raw = ctx.request.parsedUrl.query
  if (!raw) return []
  const names = new Set<string>()
  for (const key of new URLSearchParams(raw).keys()) {
    const bracket = key.indexOf('[')
    const name = bracket > 0 ? key.slice(0, bracket) : key
    if (name !== '' && !Object.hasOwn(parsed, name)) names.add(name)
  }
  return [...names]
}

/** Endpoints that take no body: any field sent is rejected. */
export const NO_BODY = defineInput({}, { strict: true })
