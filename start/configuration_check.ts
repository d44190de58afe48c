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
  PASSWORD_HASH_QUEUE: wholeNumber(0, 10000),
  PASSWORD_HASH_MAX_WAIT_MS: wholeNumber(1, 60000),
  LOGO_IMAGE_CONCURRENCY: wholeNumber(1, 64),
  LOGO_IMAGE_QUEUE: wholeNumber(0, 1000),
  LOGO_IMAGE_SECONDS_PER_MINUTE: wholeNumber(1, 60),
  LOGO_IMAGE_DEADLINE_SECONDS: wholeNumber(1, 300),
  REQUEST_TIMEOUT_SECONDS: wholeNumber(1, 3600),
  KEEP_ALIVE_TIMEOUT_SECONDS: wholeNumber(1, 3600),
  MAX_CONNECTIONS: wholeNumber(1, 1_000_000),
  // Linux's nice levels; 0 leaves batch commands at the level they were started with.
  BATCH_COMMAND_NICE: wholeNumber(0, 19),
  SMTP_SEND_TIMEOUT_SECONDS: wholeNumber(1, 600),
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

/** What an entry point prints for configuration problems: one line each, nothing else. */
export function configurationErrorText(problems: string[]): string {
  return problems.map((problem) => `configuration error: ${problem}\n`).join('')
}

/** A configuration that stops an entry point at boot: its problems, one line each. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '))
    this.name = 'ConfigurationError'
  }

  /**
   * Ace renders an error thrown while a command boots the application itself, with
   * this method when the error has one (bin/console.ts's catch never sees it).
   */
  render() {
    process.stderr.write(configurationErrorText(this.problems))
  }
}

/*
| start/env.ts's own validation (AdonisJS env, E_INVALID_ENV_VARIABLES) lists one
| problem a line in `help`, as `- "PORT" env variable must be a number (Current
| value: "abc")` or `- Value for environment variable "APP_URL" must be a valid URL,
| instead received "..."`. Read back as `PORT must be a number`: the value is left
| out, since it may be a secret that belongs in no log.
*/
const ENV_VALIDATION_LINE = [
  /^"(?<name>[^"]+)" env variable (?<problem>must be .*?)(?: \(Current value: .*\))?$/s,
  /^Value for environment variable "(?<name>[^"]+)" (?<problem>must be .*?)(?:, instead received .*)?$/s,
  /^Missing environment variable "(?<name>[^"]+)"(?<problem>)$/s,
]

function envValidationProblem(line: string): string {
  const text = line.replace(/^- /, '')
  for (const pattern of ENV_VALIDATION_LINE) {
    const groups = pattern.exec(text)?.groups
    if (groups) return `${groups.name} ${groups.problem || 'is required'}`
  }
  return text
}

/**
 * The problems `error` stands for when it is a configuration error (a
 * ConfigurationError, or start/env.ts refusing a variable), else null.
 */
export function configurationErrorProblems(error: unknown): string[] | null {
  if (error instanceof ConfigurationError) return error.problems
  if (
    error instanceof Error &&
    'code' in error &&
    error.code === 'E_INVALID_ENV_VARIABLES' &&
    'help' in error &&
    typeof error.help === 'string'
  ) {
    return error.help
      .split(/\n(?=- )/)
      .filter((line) => line.trim() !== '')
      .map(envValidationProblem)
  }
  return null
}
