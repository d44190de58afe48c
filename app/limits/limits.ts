/*
| Every limit of the contract's Limits table, declared once. Each is overridable by
| its own env variable (RATE_LIMIT_<NAME>_PER_MINUTE) and scaled by
| RATE_LIMIT_MULTIPLIER. Keys are built by the caller exactly as the table says.
| Rejected requests consume the limit too (the store counts every attempt).
*/
import limiter from '@adonisjs/limiter/services/main'
import redis from '@adonisjs/redis/services/main'
import { errors as limiterErrors } from '@adonisjs/limiter'
import settings from '#config/settings'
import ApiError from '#exceptions/api_error'
import { recordRateLimitRefusal } from '#support/operator_metrics'
import { directQuery } from '#platform/direct_query'

export const LIMITS = {
  api: { perMinute: 60, env: 'RATE_LIMIT_API_PER_MINUTE' },
  public: { perMinute: 30, env: 'RATE_LIMIT_PUBLIC_PER_MINUTE' },
  login: { perMinute: 5, env: 'RATE_LIMIT_LOGIN_PER_MINUTE' },
  profileUpdate: { perMinute: 3, env: 'RATE_LIMIT_PROFILE_UPDATE_PER_MINUTE' },
  emailResend: { perMinute: 3, env: 'RATE_LIMIT_EMAIL_RESEND_PER_MINUTE' },
  otpVerify: { perMinute: 10, env: 'RATE_LIMIT_OTP_VERIFY_PER_MINUTE' },
  passwordChange: { perMinute: 6, env: 'RATE_LIMIT_PASSWORD_CHANGE_PER_MINUTE' },
  machineClientMutation: { perMinute: 5, env: 'RATE_LIMIT_MACHINE_CLIENT_PER_MINUTE' },
  credentialConsume: { perMinute: 10, env: 'RATE_LIMIT_CREDENTIAL_CONSUME_PER_MINUTE' },
  integrationKeyMutation: { perMinute: 5, env: 'RATE_LIMIT_INTEGRATION_KEY_PER_MINUTE' },
  teamMutation: { perMinute: 5, env: 'RATE_LIMIT_TEAM_MUTATION_PER_MINUTE' },
  invitationMutation: { perMinute: 5, env: 'RATE_LIMIT_INVITATION_PER_MINUTE' },
  invitationAcceptance: { perMinute: 5, env: 'RATE_LIMIT_INVITATION_ACCEPTANCE_PER_MINUTE' },
  invitationAcceptanceIp: { perMinute: 5, env: 'RATE_LIMIT_INVITATION_ACCEPTANCE_IP_PER_MINUTE' },
  oauthToken: { perMinute: 30, env: 'RATE_LIMIT_OAUTH_TOKEN_PER_MINUTE' },
} as const

export type LimitName = keyof typeof LIMITS

function positiveNumber(raw: unknown): number | undefined {
  const parsed = Number(raw)
  return raw !== undefined && raw !== '' && Number.isFinite(parsed) && parsed > 0
    ? parsed
    : undefined
}

/** Requests per minute in force for a limit: env override, times the multiplier, at least 1. */
export function requestsPerMinute(name: LimitName): number {
  const limit = LIMITS[name]
  const base = positiveNumber(settings.limitOverride(limit.env)) ?? limit.perMinute
  const multiplier = positiveNumber(settings.rateLimitMultiplier()) ?? 1
  return Math.max(1, Math.floor(base * multiplier))
}

// One limiter per allowance, reused: limiter.use() parses the duration and builds its
// cache key on every call, per request on every limited route.
const limiters = new Map<number, ReturnType<typeof limiter.use>>()
function limiterFor(requests: number) {
  let cached = limiters.get(requests)
  if (!cached) {
    cached = limiter.use({ requests, duration: '1 minute' })
    limiters.set(requests, cached)
  }
  return cached
}

const WINDOW_MS = 60_000
const WINDOW_SECONDS = String(WINDOW_MS / 1000)

/**
 * The PostgreSQL store's consumption, as one named statement below the library: the
 * very upsert, row format and key (`rlflx:<limit>:<key>`) of the limiter library's
 * PostgreSQL store, so both count in the same rows. The profile of a Portal read
 * showed the library's layers (limiter, insured and store abstractions, their
 * response objects, its own pool round) as a share of every request's CPU. The
 * library's store is still made (limiterFor): it removes expired rows every few
 * minutes, and serves the Redis store.
 */
const CONSUME = `INSERT INTO "rate_limits" VALUES ($1, 1, $2)
  ON CONFLICT(key) DO UPDATE SET
    points = CASE WHEN "rate_limits".expire <= $3 THEN 1 ELSE "rate_limits".points + 1 END,
    expire = CASE WHEN "rate_limits".expire <= $3 THEN $2 ELSE "rate_limits".expire END
  RETURNING points, expire`

/** Seconds until the window of `key` ends when `requests` are used up, else null. */
async function consumeInDatabase(key: string, requests: number): Promise<number | null> {
  const now = Date.now()
  const [row] = await directQuery<{ points: number; expire: number }>(
    'rate_limits:consume',
    CONSUME,
    [`rlflx:${key}`, now + WINDOW_MS, now]
  )
  if (row.points <= requests) return null
  return Math.ceil(Math.max(row.expire - Date.now(), 0) / 1000)
}

/** The increment script the library's Redis store registers on its ioredis connection. */
type RedisIncrement = (
  key: string,
  points: string,
  seconds: string,
  limitPoints: string,
  limitSeconds: string
) => Promise<[number, number]>

/**
 * The Redis store's consumption, one script call below the library: the library's own
 * increment script (registered as `rlflxIncr` on the connection when its store is
 * made, by limiterFor), with its key and arguments, so both count in the same keys.
 * The profile of `/portal/me` with this store showed the library building a MULTI
 * pipeline it never sends on every consume, and its layers' objects, in the
 * collections. While the connection is being replaced (after an outage) and the
 * script is not registered on the new one yet, the library does the consuming.
 */
async function consumeInRedis(key: string, requests: number): Promise<number | null> {
  const client = redis.connection('main').ioConnection as unknown as {
    rlflxIncr?: RedisIncrement
  }
  if (!client.rlflxIncr) return consumeWithLibrary(key, requests)
  const [consumed, ttlMs] = await client.rlflxIncr(
    `rlflx:${key}`,
    '1',
    WINDOW_SECONDS,
    String(requests),
    WINDOW_SECONDS
  )
  if (consumed <= requests) return null
  return Math.ceil(Math.max(ttlMs, 0) / 1000)
}

/** Seconds until the window of `key` ends when `requests` are used up, else null. */
async function consumeWithLibrary(key: string, requests: number): Promise<number | null> {
  try {
    await limiterFor(requests).consume(key)
    return null
  } catch (error) {
    if (error instanceof limiterErrors.E_TOO_MANY_REQUESTS) return error.response.availableIn
    throw error
  }
}

/**
 * Consumes one request of `name` for `key`; throws 429 RATE_LIMITED (with
 * Retry-After) when over. `onThrottled` runs first, e.g. to audit the refusal.
 */
export async function enforceLimit(
  name: LimitName,
  key: string,
  onThrottled?: () => Promise<void>
) {
  const requests = requestsPerMinute(name)
  // Made first: the library's store cleans the table up (PostgreSQL) or registers
  // the script (Redis).
  limiterFor(requests)
  const retryAfter =
    limiter.config.default === 'database'
      ? await consumeInDatabase(`${name}:${key}`, requests)
      : await consumeInRedis(`${name}:${key}`, requests)
  if (retryAfter === null) return
  recordRateLimitRefusal(name)
  if (onThrottled) await onThrottled()
  throw ApiError.rateLimited(retryAfter)
}
