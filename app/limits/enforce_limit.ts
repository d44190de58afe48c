/*
| Enforcing a limit of the table (limits.ts) for one key. Rejected requests consume
| the limit too (the store counts every attempt).
*/
import ApiError from '#exceptions/api_error'
import { recordRateLimitRefusal } from '#support/operator_metrics'
import { consumeOne } from '#platform/rate_limit_store'
import { requestsPerMinute, type LimitName } from '#limits/limits'

/**
 * Consumes one request of `name` for `key`; throws 429 RATE_LIMITED (with
 * Retry-After) when over. `onThrottled` runs first, e.g. to audit the refusal.
 */
export async function enforceLimit(
  name: LimitName,
  key: string,
  onThrottled?: () => Promise<void>
) {
  const retryAfter = await consumeOne(`${name}:${key}`, requestsPerMinute(name))
  if (retryAfter === null) return
  recordRateLimitRefusal(name)
  if (onThrottled) await onThrottled()
  throw ApiError.rateLimited(retryAfter)
}
