/*
| A request's input, handed to the validators (app/validators/rules/input.ts, which
| know no HTTP): the parsed body or query string, and the top-level fields the
| framework's parsers dropped before a strict check could see them, read again from
| the raw text.
*/
import type { HttpContext } from '@adonisjs/core/http'
import type { SchemaTypes } from '@vinejs/vine/types'
import { isPlainObject } from '#support/plain_object'
import {
  validateParsedInput,
  validateWithPrechecks,
  type InputSchema,
  type Prechecks,
  type Validated,
} from '#validators/rules/input'
import { validateWithCatalogue, type CatalogueLookup } from '#validators/rules/currency'

export function validateBody<Properties extends Record<string, SchemaTypes>>(
  ctx: HttpContext,
  schema: InputSchema<Properties>
) {
  const body = ctx.request.body()
  const dropped = schema.strict ? droppedBodyFields(ctx.request.raw(), body) : []
  return validateParsedInput(body, schema, dropped)
}

/**
 * Top-level body fields the JSON parser removed before a strict check could see them
 * (it drops `__proto__`, and `constructor` holding a `prototype`, against prototype
 * pollution): read again from the raw text, only when it could hold one.
 */
function droppedBodyFields(raw: string | null, body: unknown): string[] {
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
 * Validates a body together with the field errors `prechecks` finds in it before
 * validation: one 422 carries both sets.
 */
export function validateBodyWithPrechecks<Properties extends Record<string, SchemaTypes>>(
  ctx: HttpContext,
  schema: InputSchema<Properties>,
  prechecks: (body: unknown) => Prechecks<Validated<Properties>>
) {
  const checks = prechecks(ctx.request.body())
  return validateWithPrechecks(() => validateBody(ctx, schema), checks)
}

export function validateQuery<Properties extends Record<string, SchemaTypes>>(
  ctx: HttpContext,
  schema: InputSchema<Properties>
) {
  const parsed = ctx.request.qs()
  const dropped = schema.strict ? droppedQueryFields(ctx.request.parsedUrl.query, parsed) : []
  return validateParsedInput(parsed, schema, dropped)
}

/**
 * Query fields the qs parser drops before a strict check could see them: names of
 * Object.prototype members (`constructor`, `__proto__`, `toString`...) and every
 * parameter past its 1,000th. Read from the raw query string, a field's name being
 * its key up to the first `[` (as qs reads `name[...]`).
 */
function droppedQueryFields(
  raw: string | null | undefined,
  parsed: Record<string, unknown>
): string[] {
  if (!raw) return []
  const names = new Set<string>()
  for (const key of new URLSearchParams(raw).keys()) {
    const bracket = key.indexOf('[')
    const name = bracket > 0 ? key.slice(0, bracket) : key
    if (name !== '' && !Object.hasOwn(parsed, name)) names.add(name)
  }
  return [...names]
}

/**
 * Validates a query whose `currency` the catalogue must accept
 * (app/validators/rules/currency.ts): the input, and the catalogue's pending verdict.
 */
export function validateQueryWithCatalogue<Properties extends Record<string, SchemaTypes>>(
  ctx: HttpContext,
  schema: InputSchema<Properties>,
  lookup: CatalogueLookup
) {
  return validateWithCatalogue(ctx.request.qs().currency, () => validateQuery(ctx, schema), lookup)
}
