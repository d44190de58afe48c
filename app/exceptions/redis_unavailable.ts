/*
| Which failures mean "the Redis limiter store is not there right now" (503
| SERVICE_UNAVAILABLE) rather than a bug. ioredis reports an outage as a
| command timeout (config/redis.ts `commandTimeout`), a flushed offline queue
| (MaxRetriesPerRequestError), a closed connection or a socket error. Pure.
*/
// Socket codes (ECONNREFUSED...) are already mapped by database_unavailable.ts.
const CODES = new Set(['NR_CLOSED'])

const MESSAGES = [
  /^Command timed out$/,
  /^Connection is closed\.?$/,
  /Stream isn't writeable/,
  /^Reached the max retries per request limit/,
  /^LOADING /,
  /^MASTERDOWN /,
]

export function isRedisUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object') return false
  const { name, code, message } = error as { name?: unknown; code?: unknown; message?: unknown }
  if (name === 'MaxRetriesPerRequestError') return true
  if (typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message))) {
    return true
  }
  if (typeof code === 'string' && CODES.has(code)) return true
  const cause = (error as { cause?: unknown }).cause
  return cause !== undefined && cause !== error && depth < 8
    ? isRedisUnavailable(cause, depth + 1)
    : false
}
