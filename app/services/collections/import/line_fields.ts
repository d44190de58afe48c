/*
| The checks of an import line's fields (import_line.ts, import_event.ts): each fails
| the line with a message naming the field and what it must be.
*/
import { parseTimestamp } from '#validators/rules/timestamp'
import { characters } from '#validators/rules/text_length'

export type Fail = (reason: string) => never

export const describe = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/
export const LONE_SURROGATE = /\p{Cs}/u
export const NOT_TEXT =
  'must not contain a lone UTF-16 surrogate (\\ud800-\\udfff without its pair)'

export function text(
  fail: Fail,
  field: string,
  value: unknown,
  options: { max: number; nullable?: boolean; controls?: boolean }
): string | null {
  if (value === null && options.nullable) return null
  if (typeof value !== 'string') {
    fail(`${field} must be a string${options.nullable ? ' or null' : ''}, got ${describe(value)}`)
  }
  if (value.length === 0) fail(`${field} must not be empty${options.nullable ? ' (use null)' : ''}`)
  // Characters (code points), as varchar(n) counts them; UTF-16 length bounds them above.
  if (value.length > options.max && characters(value) > options.max) {
    fail(`${field} must be at most ${options.max} characters`)
  }
  if (value.includes('\u0000')) fail(`${field} must not contain NUL characters`)
  // PostgreSQL would store a lone surrogate as U+FFFD: two different references would
  // become one transaction.
  if (LONE_SURROGATE.test(value)) fail(`${field} ${NOT_TEXT}`)
  if (!options.controls && CONTROL.test(value)) fail(`${field} must not contain control characters`)
  return value
}

export function integer(
  fail: Fail,
  field: string,
  value: unknown,
  { min, max }: { min: number; max: number }
): number | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(`${field} must be an integer from ${min} to ${max} or null`)
  }
  return value
}

/**
 * The instants the API can print: resource timestamps are RFC 3339 in UTC, which has
 * four-digit years 0001-9999 and no era. A value inside the grammar can still leave
 * them once its offset is applied (`0001-01-01T00:00:00+14:00` is 1 BC in UTC,
 * `9999-12-31T23:59:59.999999-14:00` is year 10000), and PostgreSQL would store it.
 */
const FIRST_UTC_SECOND = Date.parse('0001-01-01T00:00:00Z') / 1000
const LAST_UTC_SECOND = Date.parse('9999-12-31T23:59:59Z') / 1000

export function timestamp(fail: Fail, field: string, value: unknown, nullable: boolean) {
  if (value === null && nullable) return null
  const parsed = parseTimestamp(value)
  if (!parsed) {
    fail(
      `${field} must be a timestamp such as 2026-03-01T10:00:00.120+08:00` +
        `${nullable ? ' or null' : ''} (explicit offset up to ±14:00, real date)`
    )
  }
  if (parsed.epochSeconds < FIRST_UTC_SECOND || parsed.epochSeconds > LAST_UTC_SECOND) {
    fail(
      `${field} must be an instant from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z ` +
        '(UTC years 0001-9999) once its offset is applied'
    )
  }
  return parsed
}

export function optionalBoolean(
  fail: Fail,
  field: string,
  value: unknown,
  fallback: boolean | null
) {
  if (value === undefined) return fallback
  if (value === null && fallback === null) return null
  if (typeof value !== 'boolean') {
    fail(`${field} must be a boolean${fallback === null ? ' or null' : ''}`)
  }
  return value
}

export function oneOf(fail: Fail, field: string, value: unknown, allowed: readonly string[]) {
  if (value === null || value === undefined) return null
  if (typeof value !== 'string' || !allowed.includes(value)) {
    fail(`${field} must be one of ${allowed.join(', ')} or null`)
  }
  return value
}
