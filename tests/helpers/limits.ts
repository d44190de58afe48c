/*
| The one limits helper of the tests: limits of app/limits/limits.ts raised, lifted,
| restored to the contract's numbers, or forgotten.
*/
import db from '@adonisjs/lucid/services/db'
import { LIMITS, type LimitName } from '#limits/limits'
import { setEnv } from '#tests/helpers/env'

/** Lifts one limit for a test (validators' fuzzing, races); returns the undo. */
export function liftLimit(name: LimitName, perMinute = 10_000) {
  return setEnv(LIMITS[name].env, perMinute)
}

/** The contract's limits (undoes a raised RATE_LIMIT_MULTIPLIER), for a test of a limit. */
export function realLimits() {
  return setEnv('RATE_LIMIT_MULTIPLIER', 1)
}

/** Forgets every consumed limit (for tests that send more requests than a limit allows). */
export async function clearLimits() {
  await db.from('rate_limits').delete()
}
