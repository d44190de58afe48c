/*
| How one aggregate reads its buckets (docs/reporting.md): the whole UTC months
| inside a bucket come from the month rows of the `transaction_totals` rollup, the
| whole UTC days left at its edges from the day rows, and what is left (the cut
| edges, or all of a bucket holding no whole UTC day) from the transactions
| themselves. Every part is exact, so their sum is the raw aggregate.
|
| A part may also be subtracted (sign -1): a local month in Asia/Manila runs from
| 16:00 UTC on the last day of one month to 16:00 UTC on the last day of the next, so
| it is cheaper read as the whole UTC month, plus the 8 hours before it, minus the 8
| hours at its end, than as ~29 day rows and 24 raw hours. Counts, sums and
| null-amount counts are all additive, so the signed sum is still exact. Each bucket
| takes whichever decomposition reads fewer hours of raw rows and rollup rows.
*/
import { civilDate, daysFromCivil } from '#support/instants'

const DAY_MICROS = 86_400_000_000n

export interface BucketRange {
  /** Index of the bucket in the request's bucket list. */
  bucket: number
  /** 1: added to the bucket; -1: subtracted from it. */
  sign: 1 | -1
  /** Half-open [from, to), epoch microseconds. */
  from: bigint
  to: bigint
}

export interface ReadPlan {
  raw: BucketRange[]
  day: BucketRange[]
  month: BucketRange[]
}

function floorDay(micros: bigint): bigint {
  const day = micros / DAY_MICROS
  return (micros < 0n && day * DAY_MICROS !== micros ? day - 1n : day) * DAY_MICROS
}

function ceilDay(micros: bigint): bigint {
  const floor = floorDay(micros)
  return floor === micros ? floor : floor + DAY_MICROS
}

/*
| Months are found by integer date arithmetic on day counts (app/support/instants.ts
| › civilDate, daysFromCivil): this runs a few times per bucket, up to 366 buckets a
| request, where luxon, then Date objects, were the largest cost of the plan.
*/

/** First instant of the UTC month holding the day that starts at `dayStart`. */
function floorMonth(dayStart: bigint): bigint {
  const { year, month } = civilDate(Number(dayStart / DAY_MICROS))
  return BigInt(daysFromCivil(year, month, 1)) * DAY_MICROS
}

function ceilMonth(dayStart: bigint): bigint {
  const days = Number(dayStart / DAY_MICROS)
  const { year, month, day } = civilDate(days)
  return day === 1 ? dayStart : BigInt(daysFromCivil(year, month + 1, 1)) * DAY_MICROS
}

const HOUR_MICROS = 3_600_000_000n
const SHORT_BUCKET_MICROS = 25n * HOUR_MICROS

/** Whole months, whole days and raw edges of [from, to), added with `sign`. */
function additive(bucket: number, from: bigint, to: bigint, sign: 1 | -1): ReadPlan {
  const plan: ReadPlan = { raw: [], day: [], month: [] }
  const push = (list: BucketRange[], lo: bigint, hi: bigint) => {
    if (lo < hi) list.push({ bucket, sign, from: lo, to: hi })
  }
  const firstDay = ceilDay(from)
  const endDay = floorDay(to)
  if (firstDay >= endDay) {
    push(plan.raw, from, to)
    return plan
  }
  push(plan.raw, from, firstDay)
  push(plan.raw, endDay, to)
  const firstMonth = ceilMonth(firstDay)
  const endMonth = floorMonth(endDay)
  if (firstMonth >= endMonth) {
    push(plan.day, firstDay, endDay)
    return plan
  }
  push(plan.day, firstDay, firstMonth)
  push(plan.month, firstMonth, endMonth)
  push(plan.day, endMonth, endDay)
  return plan
}

/** Rough reading cost: raw hours, day rows and month rows, one unit each. */
function cost(plan: ReadPlan): bigint {
  let total = 0n
  for (const part of plan.raw) total += (part.to - part.from + HOUR_MICROS - 1n) / HOUR_MICROS
  for (const part of plan.day) total += (part.to - part.from) / DAY_MICROS
  return total + BigInt(plan.month.length)
}

function merge(...plans: ReadPlan[]): ReadPlan {
  const merged: ReadPlan = { raw: [], day: [], month: [] }
  for (const plan of plans) {
    for (const part of plan.raw) merged.raw.push(part)
    for (const part of plan.day) merged.day.push(part)
    for (const part of plan.month) merged.month.push(part)
  }
  return merged
}

/** [from, edge) added when edge ≥ from, [edge, from) subtracted when the edge lies before. */
function edgePart(bucket: number, from: bigint, edge: bigint): ReadPlan {
  return edge >= from ? additive(bucket, from, edge, 1) : additive(bucket, edge, from, -1)
}

/** The cheapest exact decomposition of each bucket [from, to). */
export function planReads(buckets: ReadonlyArray<{ from: bigint; to: bigint }>): ReadPlan {
  const plans = buckets.map(({ from, to }, bucket) => {
    let best = additive(bucket, from, to, 1)
    // A bucket of at most 25 hours (a local day) costs at most 25 as it is, and any
    // run of whole months (28 days or more) would leave over 26 days to correct.
    if (to - from <= SHORT_BUCKET_MICROS) return best
    let bestCost = cost(best)
    // A run of whole UTC months, its ends taken inside or outside the bucket; what
    // lies between an end and the bucket's bound is added or subtracted. (Runs of
    // whole UTC days the same way, for local days, were measured and not kept:
    // bench/README.md.)
    const lows = [ceilMonth(ceilDay(from)), floorMonth(floorDay(from))]
    const highs = [floorMonth(floorDay(to)), ceilMonth(ceilDay(to))]
    for (const low of lows) {
      for (const high of highs) {
        if (low >= high) continue
        const candidate = merge(
          { raw: [], day: [], month: [{ bucket, sign: 1, from: low, to: high }] },
          edgePart(bucket, from, low),
          // [high, to) added when high < to; [to, high) subtracted when high > to.
          high <= to ? additive(bucket, high, to, 1) : additive(bucket, to, high, -1)
        )
        const candidateCost = cost(candidate)
        if (candidateCost < bestCost) {
          best = candidate
          bestCost = candidateCost
        }
      }
    }
    return best
  })
  return merge(...plans)
}
