/*
| Configuration refused at boot (decisions.md §3): a value that is set but cannot mean
| what its variable says stops every entry point with a message naming it, instead of
| a silent fallback to the default (or a 503 on the first reporting request).
| Unset variables keep their defaults; the readers keep their own fallbacks.
*/
import { isIanaTimezone } from '#support/time_zones'

type Rule = (value: string) => string | null

const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER): Rule =>
  (value) =>
    /^[0-9]+$/.test(value) && Number(value) >= min && Number(value) <= max
      ? null
      : `must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}`

const positiveNumber: Rule = (value) =>
  value.trim() !== '' && Number.isFinite(Number(value)) && Number(value) > 0
    ? null
    : 'must be a number greater than 0'

const RULES: Record<string, Rule> = {
  PAT_TTL_MINUTES: wholeNumber(1),
  // At most the proof's 60 minutes: a longer cooldown would leave an expired link
  // that cannot be replaced.
  RESET_LINK_COOLDOWN_MINUTES: wholeNumber(1, 60),
  RESET_LINK_MAILS_PER_HOUR: wholeNumber(1, 60),
  MACHINE_TOKEN_TTL_SECONDS: wholeNumber(1),
  HISTORY_RETENTION_MONTHS: wholeNumber(1, 1200),
  RATE_LIMIT_MULTIPLIER: positiveNumber,
  LOGO_IMAGE_CONCURRENCY: wholeNumber(1, 64),
  LOGO_IMAGE_QUEUE: wholeNumber(0, 1000),
  LOGO_IMAGE_SECONDS_PER_MINUTE: wholeNumber(1, 60),
  REPORTING_DEFAULT_TIMEZONE: (value) =>
    isIanaTimezone(value) ? null : 'must be an IANA time zone name such as Asia/Manila',
}

/** Every RATE_LIMIT_<NAME>_PER_MINUTE override (app/limits/limits.ts) is a positive number. */
const PER_MINUTE = /^RATE_LIMIT_[A-Z_]+_PER_MINUTE$/

/** The problems of the configuration in `variables`, one line per variable. */
export function configurationProblems(variables: NodeJS.ProcessEnv): string[] {
  const problems: string[] = []
  for (const [name, value] of Object.entries(variables)) {
    if (value === undefined || value === '') continue
    const rule = RULES[name] ?? (PER_MINUTE.test(name) ? positiveNumber : undefined)
    const problem = rule?.(value)
    if (problem) problems.push(`${name} ${problem}`)
  }
  return problems
}
