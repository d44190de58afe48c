/*
| How request input reaches validators, in one place:
| - strings are trimmed, except passwords and integration key values;
| - a strict endpoint rejects any field it does not list (422 on that field's name),
|   because VineJS would otherwise drop unknown fields silently;
| - a body must be a JSON object;
| - one 422 names every field that fails: the field rules (with the project's messages,
|   rules/messages.ts), the cross-field rules (checked with the fields that passed),
|   text that is not text, and unlisted fields.
| It knows no HTTP: app/http/request_input.ts reads a request's body and query and
| hands them here.
*/
import { errors as vineErrors } from '@vinejs/vine'
import type { SchemaTypes } from '@vinejs/vine/types'
import ApiError, { type FieldErrors } from '#exceptions/api_error'
import { ensureBodyDepth } from '#validators/rules/body_depth'
import { isPlainObject } from '#support/plain_object'
import { fieldsWithInvalidText, trimStrings } from '#validators/rules/input_text'
import { createValidator } from '#validators/rules/messages'

export interface InputSchema<Properties extends Record<string, SchemaTypes>> {
  properties: Properties
  strict: boolean
  validator: ReturnType<typeof createValidator<Properties>>
  crossField?: {
    // Typed where it is declared (defineInput); here its values are any fields.
    rule: CrossFieldRule<any>
    /** One validator per field the rule reads, for when other fields failed. */
    fieldValidators: Map<string, ReturnType<typeof createValidator>>
  }
}

/** The validated values of an input's properties. */
export type Validated<Properties extends Record<string, SchemaTypes>> = Awaited<
  ReturnType<ReturnType<typeof createValidator<Properties>>['validate']>
>

/** The validated values of an input declared with defineInput(). */
export type InputOf<Schema> =
  Schema extends InputSchema<infer Properties> ? Validated<Properties> : never

/**
 * A rule across fields (`from` before `to`, the length of a range). It is checked with
 * the fields it reads that passed their own rules, even when other fields failed, so
 * that one 422 names every field that fails.
 */
export interface CrossFieldRule<Data> {
  reads: readonly (keyof Data & string)[]
  /** Adds its messages to `errors`; `values` holds the read fields that passed. */
  check: (values: Partial<Data>, errors: FieldErrors) => void
}

/** An endpoint's input: its listed fields, and whether unlisted ones are rejected. */
export function defineInput<Properties extends Record<string, SchemaTypes>>(
  properties: Properties,
  options: { strict: boolean; crossField?: CrossFieldRule<Validated<Properties>> }
): InputSchema<Properties> {
  const schema: InputSchema<Properties> = {
    properties,
    strict: options.strict,
    validator: createValidator(properties),
  }
  if (options.crossField) {
    const fieldValidators = new Map(
      options.crossField.reads.map((name) => [
        name,
        createValidator({ [name]: properties[name] } as Record<string, SchemaTypes>),
      ])
    )
    schema.crossField = { rule: options.crossField, fieldValidators }
  }
  return schema
}

export async function validateInput<Properties extends Record<string, SchemaTypes>>(
  raw: unknown,
  schema: InputSchema<Properties>
): Promise<Validated<Properties>> {
  if (raw === undefined || raw === null || raw === '') raw = {}
  if (!isPlainObject(raw)) {
    throw ApiError.field('body', 'The request body must be a JSON object.')
  }
  // Bounded before any recursive walk below.
  ensureBodyDepth(raw)
  const input = trimStrings(raw) as Record<string, unknown>
  // No prototype: field names such as `constructor` or `__proto__` are plain keys here.
  const fieldErrors: FieldErrors = Object.create(null)
  // Listed fields holding text that is not text are left out of the validation (the
  // email rule throws on a lone surrogate); the other fields are still checked.
  const unreadable = new Set<string>()
  for (const path of fieldsWithInvalidText(input)) {
    const name = path.split('.')[0]
    if (!Object.hasOwn(schema.properties, name)) continue
    unreadable.add(name)
    ;(fieldErrors[path] ??= []).push(
      `The ${path} field must not contain a NUL character or an unpaired UTF-16 surrogate.`
    )
  }
  const readable =
    unreadable.size === 0
      ? input
      : Object.fromEntries(Object.entries(input).filter(([name]) => !unreadable.has(name)))
  let data: Validated<Properties> | undefined
  try {
    data = await schema.validator.validate(readable)
  } catch (error) {
    if (!(error instanceof vineErrors.E_VALIDATION_ERROR)) throw error
    for (const message of error.messages as Array<{ field: string; message: string }>) {
      const field = message.field || 'body'
      if (!unreadable.has(field.split('.')[0])) (fieldErrors[field] ??= []).push(message.message)
    }
  }
  if (schema.crossField) {
    const values = data ?? (await passingFields(schema.crossField, readable, fieldErrors))
    schema.crossField.rule.check(values, fieldErrors)
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

/** The validated values of the fields a cross-field rule reads that have no error. */
async function passingFields(
  crossField: NonNullable<InputSchema<any>['crossField']>,
  input: Record<string, unknown>,
  fieldErrors: FieldErrors
): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {}
  for (const [name, validator] of crossField.fieldValidators) {
    const failed = Object.keys(fieldErrors).some(
      (path) => path === name || path.startsWith(`${name}.`)
    )
    if (failed) continue
    try {
      Object.assign(values, await validator.validate({ [name]: input[name] }))
    } catch (error) {
      if (!(error instanceof vineErrors.E_VALIDATION_ERROR)) throw error
    }
  }
  return values
}

/**
 * Field errors found before validation (nulls that VineJS's optional() would drop, a
 * body naming no field), and `afterValid`, which may add errors that depend on the
 * validated input.
 */
export interface Prechecks<Data> {
  errors: FieldErrors
  afterValid?: (input: Data) => void
}

/** Validates together with the prechecks' field errors: one 422 carries both sets. */
export async function validateWithPrechecks<Data>(
  validate: () => Promise<Data>,
  { errors, afterValid }: Prechecks<Data>
): Promise<Data> {
  try {
    const input = await validate()
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

/**
 * Validates what a parser produced, with the top-level fields it dropped before a
 * strict check could see them (`dropped`) reported beside its errors.
 */
export function validateParsedInput<Properties extends Record<string, SchemaTypes>>(
  parsed: unknown,
  schema: InputSchema<Properties>,
  dropped: string[]
) {
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

/** Endpoints that take no body: any field sent is rejected. */
export const NO_BODY = defineInput({}, { strict: true })
