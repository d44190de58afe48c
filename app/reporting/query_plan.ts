/*
| How one aggregate reads its buckets (docs/reporting.md): the whole UTC months
| inside a bucket come from the month rows of the `transaction_totals` rollup, the
| whole UTC days left at its edges from the day rows, and what is left (the cut
| edges, or all of a bucket holding no whole UTC day) from the transactions
| themselves. Every part is exact, so their sum is the raw aggregate.
*/
import { DateTime } from 'luxon'

const DAY_MICROS = 86_400_000_000n

export type Grain = 'day' | 'month'

export interface BucketRange {
  /** Index of the bucket in the request's bucket list. */
  bucket: number
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

/** First instant of the UTC month holding the day that starts at `dayStart`. */
function floorMonth(dayStart: bigint): bigint {
  const day = DateTime.fromMillis(Number(dayStart / 1000n), { zone: 'utc' })
  return BigInt(day.startOf('month').toMillis()) * 1000n
}

function ceilMonth(dayStart: bigint): bigint {
  const floor = floorMonth(dayStart)
  if (floor === dayStart) return floor
  const month = DateTime.fromMillis(Number(floor / 1000n), { zone: 'utc' })
  return BigInt(month.plus({ months: 1 }).toMillis()) * 1000n
}

/** Splits each bucket [from, to) into whole UTC months, whole UTC days and raw edges. */
export function planReads(buckets: ReadonlyArray<{ from: bigint; to: bigint }>): ReadPlan {
  const plan: ReadPlan = { raw: [], day: [], month: [] }
  const push = (list: BucketRange[], bucket: number, from: bigint, to: bigint) => {
    if (from < to) list.push({ bucket, from, to })
  }
  buckets.forEach(({ from, to }, bucket) => {
    const firstDay = ceilDay(from)
    const endDay = floorDay(to)
    if (firstDay >= endDay) return push(plan.raw, bucket, from, to)
    push(plan.raw, bucket, from, firstDay)
    push(plan.raw, bucket, endDay, to)
    const firstMonth = ceilMonth(firstDay)
    const endMonth = floorMonth(endDay)
    if (firstMonth >= endMonth) return push(plan.day, bucket, firstDay, endDay)
    push(plan.day, bucket, firstDay, firstMonth)
    push(plan.month, bucket, firstMonth, endMonth)
    push(plan.day, bucket, endMonth, endDay)
  })
  return plan
}
