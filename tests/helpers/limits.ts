/*
| The one limits helper of the tests: limits of app/limits/limits.ts set, lifted,
| raised all at once, restored to the contract's numbers, or forgotten. (Tests of
| the limit variables themselves set them by name: tests/functional/limits.)
*/
import db from '@adonisjs/lucid/services/db'
import { LIMITS, type LimitName } from '#limits/limits'
import { setEnv, withEnv } from '#tests/helpers/env'

/** Sets one limit's number per minute for a test; returns the undo. */
export function setLimit(name: LimitName, perMinute: number) {
  return setEnv(LIMITS[name].env, perMinute)
}

/** Lifts one limit for a test (validators' fuzzing, races); returns the undo. */
export function liftLimit(name: LimitName, perMinute = 10_000) {
  return setLimit(name, perMinute)
}

/**
 * Raises every limit `factor`-fold (RATE_LIMIT_MULTIPLIER), for tests that send more
 * requests than the contract's limits allow; returns the undo.
 */
export function raiseLimits(factor = 100) {
  return setEnv('RATE_LIMIT_MULTIPLIER', factor)
}

/** Runs `callback` with every limit raised `factor`-fold, restored even when it throws. */
export function withRaisedLimits<T>(callback: () => Promise<T>, factor = 100) {
  return withEnv({ RATE_LIMIT_MULTIPLIER: factor }, callback)
}

/** The contract's limits (undoes a raised RATE_LIMIT_MULTIPLIER), for a test of a limit. */
export function realLimits() {
  return raiseLimits(1)
}

/** Forgets every consumed limit (for tests that send more requests than a limit allows). */
export async function clearLimits() {
  await db.from('rate_limits').delete()
}
