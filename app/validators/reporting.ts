/*
| Input of portal-api.md › GET /portal/collections/metrics and /charts (strict: any
| other query field, `interval` on metrics, pagination, status, search, merchant
| references and `as_of` included, is a 422 on its own name).
|
| Across fields, checked whenever `from` and `to` are valid timestamps (so reported
| with every other field that fails): both read years 0001-9999 in the reporting
| timezone, `from` < `to`, and the range at most ten calendar years from `from` in that
| timezone (on `to`; on charts on `interval` too). Then the currency catalogue (422
| unsupported, 503 unreadable: rules/currency.ts), its field error reported with the
| others.
*/
import vine from '@vinejs/vine'
import ApiError, { type FieldErrors } from '#exceptions/api_error'
import settings from '#config/settings'
import { environmentField } from '#validators/rules/environment'
import { INTERVALS, type Environment } from '#models/collections_vocabulary'
import { timestampField, type Timestamp } from '#validators/rules/timestamp'
import { defineInput, type CrossFieldRule, type InputSchema } from '#validators/rules/input'
import { currencyField } from '#validators/rules/currency'
import { textOfLength } from '#validators/rules/text_length'
import { RANGE_LIMIT_YEARS, localYear, rangeLimit } from '#support/zoned_instants'
import { isIanaTimezone } from '#support/time_zones'

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
  currency: currencyField(),
  from: timestampField(),
  to: timestampField(),
  timezone: vine.string().use(ianaTimezone()).optional(),
  payment_brand: textOfLength(1, 100).optional(),
}

/**
 * The range rules. `excessAlsoOn` names the fields besides `to` that carry the
 * ten-year excess: charts file it on `interval` too, as the contract's Errors table
 * files "range and bucket excess" as an `interval` field error; metrics have no
 * `interval` to file it on.
 */
function rangeRule(excessAlsoOn: readonly string[]): CrossFieldRule<{
  from: Timestamp
  to: Timestamp
  timezone?: string
}> {
  return {
    reads: ['from', 'to', 'timezone'],
    check(values, errors) {
      const { from, to } = values
      if (!from || !to) return
      // A timezone that failed its own rule leaves only the order to check.
      const timezone = errors.timezone ? undefined : (values.timezone ?? defaultReportingTimezone())
      if (timezone !== undefined && !withinShownYears({ from, to }, timezone, errors)) return
      if (from.epochMicros >= to.epochMicros) {
        ;(errors.to ??= []).push('The to field must be after from.')
      } else if (
        timezone !== undefined &&
        to.epochMicros > rangeLimit(from.epochMicros, timezone)
      ) {
        const excess = `The range must not exceed ${RANGE_LIMIT_YEARS} calendar years.`
        for (const field of ['to', ...excessAlsoOn]) (errors[field] ??= []).push(excess)
      }
    },
  }
}

/**
 * Echoes and bucket labels are written with four-digit years in the reporting
 * timezone: a bound that reads year 0 or 10000 there cannot be shown.
 */
function withinShownYears(
  bounds: { from: Timestamp; to: Timestamp },
  timezone: string,
  errors: FieldErrors
): boolean {
  let within = true
  for (const field of ['from', 'to'] as const) {
    const year = localYear(bounds[field].epochMicros, timezone)
    if (year < 1 || year > 9999) {
      within = false
      ;(errors[field] ??= []).push(
        `The ${field} field must fall within years 0001-9999 in the reporting timezone.`
      )
    }
  }
  return within
}

/** GET /portal/collections/metrics (strict). */
export const metricsInput = defineInput(metricsFields, {
  strict: true,
  crossField: rangeRule([]),
})

/** GET /portal/collections/charts (strict): the metrics query plus `interval`. */
export const chartInput = defineInput(
  { ...metricsFields, interval: vine.enum(INTERVALS) },
  { strict: true, crossField: rangeRule(['interval']) }
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
  const configured = settings.reportingDefaultTimezone() || DEFAULT_REPORTING_TIMEZONE
  if (!isIanaTimezone(configured)) {
    throw ApiError.serviceUnavailable('The reporting timezone is misconfigured.')
  }
  return configured
}

/** The query of a validated metrics or chart request, its timezone defaulted. */
export function reportingQuery(input: {
  environment: Environment
  currency: string
  from: Timestamp
  to: Timestamp
  timezone?: string
  payment_brand?: string
}): ReportingQuery {
  return {
    environment: input.environment,
    currency: input.currency,
    from: input.from,
    to: input.to,
    timezone: input.timezone ?? defaultReportingTimezone(),
    paymentBrand: input.payment_brand,
  }
}

export type { InputSchema }
