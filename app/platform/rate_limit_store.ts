/*
| One request counted against a rate limit, below the limiter library's layers
| (@adonisjs/limiter over rate-limiter-flexible), in the library's own rows and keys
| so that both count together:
|
| - PostgreSQL: the very upsert, row format and key (`rlflx:<limit>:<key>`) of the
|   library's PostgreSQL store, as one named statement. The profile of a Portal read
|   showed the library's layers (limiter, insured and store abstractions, their
|   response objects, its own pool round) as a share of every request's CPU.
| - Redis: the library's own increment script, which its Redis store registers as the
|   ioredis command `rlflxIncr` when the store is made. The profile of `/portal/me`
|   showed the library building a MULTI pipeline it never sends on every consume.
|
| The library's store is still made first (storeFor): it removes expired rows every
| few minutes and registers the script. Both are internals of the library
| (app/platform/README.md); tests/unit/platform_internals.spec.ts checks that the
| library and this module still count in the same rows and keys.
*/
import limiter from '@adonisjs/limiter/services/main'
import redis from '@adonisjs/redis/services/main'
import { errors as limiterErrors } from '@adonisjs/limiter'
import { directQuery } from '#platform/direct_query'

const WINDOW_MS = 60_000
const WINDOW_SECONDS = String(WINDOW_MS / 1000)

/** The prefix rate-limiter-flexible puts before every key. */
export const LIBRARY_KEY_PREFIX = 'rlflx'

// One library limiter per allowance, reused: limiter.use() parses the duration and
// builds its cache key on every call, per request on every limited route.
const stores = new Map<number, ReturnType<typeof limiter.use>>()

/** The library's limiter of `requests` a minute, made once. */
export function storeFor(requests: number) {
  let cached = stores.get(requests)
  if (!cached) {
    cached = limiter.use({ requests, duration: '1 minute' })
    stores.set(requests, cached)
  }
  return cached
}

/** The library's PostgreSQL upsert (RateLimiterPostgres `_upsert`, one point, no forced expiry). */
const CONSUME = `INSERT INTO "rate_limits" VALUES ($1, 1, $2)
  ON CONFLICT(key) DO UPDATE SET
    points = CASE WHEN "rate_limits".expire <= $3 THEN 1 ELSE "rate_limits".points + 1 END,
    expire = CASE WHEN "rate_limits".expire <= $3 THEN $2 ELSE "rate_limits".expire END
  RETURNING points, expire`

/** Seconds until the window of `key` ends when `requests` are used up, else null. */
export async function consumeInDatabase(key: string, requests: number): Promise<number | null> {
  const now = Date.now()
  const [row] = await directQuery<{ points: number; expire: number }>(
    'rate_limits:consume',
    CONSUME,
    [`${LIBRARY_KEY_PREFIX}:${key}`, now + WINDOW_MS, now]
  )
  if (row.points <= requests) return null
  return Math.ceil(Math.max(row.expire - Date.now(), 0) / 1000)
}

/** The name the library's Redis store gives its increment script on the connection. */
export const REDIS_INCREMENT_COMMAND = 'rlflxIncr'

/** The script's answer: points consumed in the window and its milliseconds left. */
function incrementResult(answer: unknown): [number, number] {
  if (
    Array.isArray(answer) &&
    answer.length === 2 &&
    typeof answer[0] === 'number' &&
    typeof answer[1] === 'number'
  ) {
    return [answer[0], answer[1]]
  }
  throw new Error(`${REDIS_INCREMENT_COMMAND} answered an unexpected shape: the limiter changed`)
}

/** As consumeInDatabase, in the Redis store. */
export async function consumeInRedis(key: string, requests: number): Promise<number | null> {
  const connection = redis.connection('main').ioConnection
  const increment: unknown = Reflect.get(connection, REDIS_INCREMENT_COMMAND)
  // While the connection is being replaced (after an outage) the script is not
  // registered on the new one yet: the library does the consuming then.
  if (typeof increment !== 'function') return consumeWithLibrary(key, requests)
  const [consumed, ttlMs] = incrementResult(
    await Reflect.apply(increment, connection, [
      `${LIBRARY_KEY_PREFIX}:${key}`,
      '1',
      WINDOW_SECONDS,
      String(requests),
      WINDOW_SECONDS,
    ])
  )
  if (consumed <= requests) return null
  return Math.ceil(Math.max(ttlMs, 0) / 1000)
}

async function consumeWithLibrary(key: string, requests: number): Promise<number | null> {
  try {
    await storeFor(requests).consume(key)
    return null
  } catch (error) {
    if (error instanceof limiterErrors.E_TOO_MANY_REQUESTS) return error.response.availableIn
    throw error
  }
}

/**
 * Counts one request for `key` against `requests` a minute in the configured store:
 * null while within them, else the seconds until the window of `key` ends.
 */
export async function consumeOne(key: string, requests: number): Promise<number | null> {
  // Made first: the library's store cleans the table up (PostgreSQL) or registers
  // the script (Redis).
  storeFor(requests)
  return limiter.config.default === 'database'
    ? consumeInDatabase(key, requests)
    : consumeInRedis(key, requests)
}
