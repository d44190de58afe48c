/*
| Input of portal-api.md › GET /portal/collections/metrics and /charts (strict: any
| other query field, `interval` on metrics, pagination, status, search, merchant
| references and `as_of` included, is a 422 on its own name).
|
| After the field rules: `from` < `to`, and the range at most ten calendar years from
| `from` in the reporting timezone (fields `to` and `interval`); then the currency catalogue (422
| unsupported, 503 unreadable), its field error reported with the others.
*/
import vine from '@vinejs/vine'
import ApiError, { type FieldErrors } from '#exceptions/api_error'
import env from '#start/env'
import { environmentField, type Environment } from '#validators/rules/environment'
import { timestampField, type Timestamp } from '#validators/rules/timestamp'
import { defineInput, type InputSchema } from '#validators/rules/input'
import { textOfLength } from '#validators/rules/text_length'
import {
  INTERVALS,
  RANGE_LIMIT_YEARS,
  isIanaTimezone,
  localYear,
  rangeLimit,
} from '#reporting/calendar'
import type { Interval } from '#reporting/calendar'

export const DEFAULT_REPORTING_TIMEZONE = 'Asia/Manila'

const ianaTimezone = vine.createRule((value, _options, field) => {
  if (typeof value !== 'string' || !isIanaTimezone(value)) {
    field.report(
      'The {{ field }} field must be an IANA time zone name such as Asia/Manila.',
      'timezone',
      field
    )
  }
})

const metricsFields = {
  environment: environmentField(),
  currency: vine.string().regex(/^[A-Z]{3}$/),
  from: timestampField(),
  to: timestampField(),
  timezone: vine.string().use(ianaTimezone()).optional(),
  payment_brand: textOfLength(1, 100).optional(),
}

/** GET /portal/collections/metrics (strict). */
export const metricsInput = defineInput(metricsFields, { strict: true })

/** GET /portal/collections/charts (strict): the metrics query plus `interval`. */
export const chartInput = defineInput(
  { ...metricsFields, interval: vine.enum(INTERVALS) },
  { strict: true }
)

export interface ReportingQuery {
  environment: Environment
  currency: string
  from: Timestamp
  to: Timestamp
  timezone: string
  paymentBrand?: string
}

/** The reporting timezone when the request names none: REPORTING_DEFAULT_TIMEZONE. */
export function defaultReportingTimezone(): string {
  const configured = env.get('REPORTING_DEFAULT_TIMEZONE') || DEFAULT_REPORTING_TIMEZONE
  if (!isIanaTimezone(configured)) {
    throw ApiError.serviceUnavailable('The reporting timezone is misconfigured.')
  }
  return configured
}

type Validated = {
  environment: Environment
  currency: string
  from: Timestamp
  to: Timestamp
  timezone?: string
  payment_brand?: string
}

/** A query that passed every rule but the catalogue, and the catalogue's pending verdict. */
export interface CompletedReportingQuery {
  query: ReportingQuery
  /**
   * Rejects with the catalogue's 422 (as a validation error on `currency`) or 503;
   * the caller must await it (`afterCatalogue`) before answering.
   */
  catalogue: Promise<void>
}

/**
 * The cross-field rules and the catalogue, on a query that passed its field rules.
 * The catalogue is read on every request; when the other rules pass, its verdict is
 * left pending so that the caller overlaps it with the aggregate (one round trip
 * less) and still answers its 422 or 503 first.
 */
export async function completeReportingQuery(
  input: Validated,
  /** The catalogue lookup of `input.currency`, started by the caller. */
  currencyCheck: Promise<void>
): Promise<CompletedReportingQuery> {
  const timezone = input.timezone ?? defaultReportingTimezone()
  const errors: FieldErrors = Object.create(null)
  // Echoes and bucket labels are written with four-digit years in the reporting
  // timezone: a bound that reads year 0 or 10000 there cannot be shown.
  for (const field of ['from', 'to'] as const) {
    const year = localYear(input[field].epochMicros, timezone)
    if (year < 1 || year > 9999) {
      errors[field] = [
        `The ${field} field must fall within years 0001-9999 in the reporting timezone.`,
      ]
    }
  }
  if (!errors.from && !errors.to) {
    if (input.from.epochMicros >= input.to.epochMicros) {
      errors.to = ['The to field must be after from.']
    } else if (input.to.epochMicros > rangeLimit(input.from.epochMicros, timezone)) {
      // On `to`, the bound that overshoots, and on `interval`, where the contract's
      // Errors table files range and bucket excess alike.
      const excess = [`The range must not exceed ${RANGE_LIMIT_YEARS} calendar years.`]
      errors.to = excess
      errors.interval = [...excess]
    }
  }
  const catalogue = catalogueErrors(currencyCheck)
  if (Object.keys(errors).length > 0) {
    Object.assign(errors, await catalogue)
    throw ApiError.validation(errors)
  }
  return {
    query: {
      environment: input.environment,
      currency: input.currency,
      from: input.from,
      to: input.to,
      timezone,
      paymentBrand: input.payment_brand,
    },
    catalogue: catalogue.then((currencyErrors) => {
      if (Object.keys(currencyErrors).length > 0) throw ApiError.validation(currencyErrors)
    }),
  }
}

/** The catalogue's field errors for `currency` (none when supported); 503 is thrown. */
async function catalogueErrors(currencyCheck: Promise<void>): Promise<FieldErrors> {
  try {
    await currencyCheck
    return Object.create(null)
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 422 || !error.fieldErrors) throw error
    return Object.assign(Object.create(null), error.fieldErrors)
  }
}

export type { Interval, InputSchema }
