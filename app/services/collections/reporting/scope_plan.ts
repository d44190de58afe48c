/*
| How an aggregate without a brand filter reads its buckets from the scope rollup
| (`transaction_scope_totals`, migration 0980; docs/reporting.md): rows of UTC
| months, days, hours and quarter-hours, and the transactions themselves only where a
| bound is not on a quarter-hour (local mean time, or a `from`/`to` with minutes,
| seconds or microseconds of its own).
|
| Each bucket [from, to) is written as a run of whole periods of one grain between two
| anchors, plus the signed spans between each anchor and the bound it stands for:
|   [from, to) = I(from, a) + I(a, b) + I(b, to),
| where I(p, q) is +[p, q) when p < q and −[q, p) when q < p. Counts and sums are
| additive, so the signed total is exact. An anchor is a bound rounded down or up to
| its grain; the span from it to the bound is written the same way with the next
| finer grain, down to a raw span shorter than a quarter-hour. An Asia/Manila day is
| thus its UTC day, plus the 8 hours before, minus the 8 hours at its end; an
| Asia/Kolkata day adds 5 hours and 2 quarters each side. The cheapest choice is
| kept, per bound (a small dynamic programme over the grains, each rounded down or
| up: scope_reach.ts) and per bucket (the grain and anchors of its middle run).
|
| Adjacent buckets share their bound, and usually the span at it (subtracted from
| one, added to the next): parts are returned once, each with every bucket it counts
| for.
*/
import {
  CEIL,
  FLOOR,
  LAST,
  SCOPE_GRAINS,
  boundOf,
  rangeCost,
  rawCost,
  reachOf,
  type Reach,
  type ScopeGrain,
} from '#services/collections/reporting/scope_reach'

/** One bucket a part counts for, added (1) or subtracted (-1). */
export interface PartUse {
  bucket: number
  sign: 1 | -1
}

/** Whole periods of one grain: half-open [from, to), epoch milliseconds. */
export interface PeriodPart {
  grain: ScopeGrain
  from: number
  to: number
  uses: PartUse[]
}

/** A span read from the transactions themselves: half-open [from, to), epoch microseconds. */
export interface RawPart {
  from: bigint
  to: bigint
  uses: PartUse[]
}

export interface ScopePlan {
  periods: PeriodPart[]
  raw: RawPart[]
}

/**
 * Signed spans I(from, to) of one bucket, collected into the plan: +[from, to) or
 * −[to, from), periods in epoch milliseconds, raw spans in microseconds.
 */
class PlanBuilder {
  private periods: PeriodPart[] = []
  /** Per grain, the parts by their start (a few share one: a day and its overhang). */
  private byStart = new Map<ScopeGrain, Map<number, PeriodPart[]>>(
    SCOPE_GRAINS.map((grain) => [grain, new Map()])
  )
  private raw = new Map<string, RawPart>()

  period(bucket: number, grain: ScopeGrain, from: number, to: number) {
    const forward = from < to
    const [lo, hi] = forward ? [from, to] : [to, from]
    const starting = this.byStart.get(grain)!
    let sameStart = starting.get(lo)
    if (!sameStart) {
      sameStart = []
      starting.set(lo, sameStart)
    }
    let part = sameStart.find((candidate) => candidate.to === hi)
    if (!part) {
      part = { grain, from: lo, to: hi, uses: [] }
      sameStart.push(part)
      this.periods.push(part)
    }
    part.uses.push({ bucket, sign: forward ? 1 : -1 })
  }

  rawSpan(bucket: number, from: bigint, to: bigint) {
    const forward = from < to
    const [lo, hi] = forward ? [from, to] : [to, from]
    const key = `${lo}/${hi}`
    let part = this.raw.get(key)
    if (!part) {
      part = { from: lo, to: hi, uses: [] }
      this.raw.set(key, part)
    }
    part.uses.push({ bucket, sign: forward ? 1 : -1 })
  }

  plan(): ScopePlan {
    return { periods: this.periods, raw: [...this.raw.values()] }
  }
}

/**
 * The spans of I(anchor, x), the anchor being the reach's at `level` and `side`,
 * or of I(x, anchor) when `reversed`.
 */
function addReach(
  plan: PlanBuilder,
  bucket: number,
  reach: Reach,
  level: number,
  side: number,
  reversed: boolean
) {
  for (; level < LAST; level++) {
    const anchor = reach.anchors[level * 2 + side]
    side = reach.next[level * 2 + side]
    const next = reach.anchors[(level + 1) * 2 + side]
    if (anchor === next) continue
    if (reversed) plan.period(bucket, SCOPE_GRAINS[level + 1], next, anchor)
    else plan.period(bucket, SCOPE_GRAINS[level + 1], anchor, next)
  }
  const anchor = BigInt(reach.anchors[LAST * 2 + side]) * 1000n
  if (anchor === reach.bound.micros) return
  if (reversed) plan.rawSpan(bucket, reach.bound.micros, anchor)
  else plan.rawSpan(bucket, anchor, reach.bound.micros)
}

/** The cheapest signed spans of one bucket [from, to), added to the plan. */
function addBucket(plan: PlanBuilder, bucket: number, low: Reach, high: Reach) {
  let bestCost = rawCost(low.bound.micros, high.bound.micros)
  let best: [number, number, number] | undefined
  for (let level = 0; level <= LAST; level++) {
    for (const lowSide of [FLOOR, CEIL]) {
      for (const highSide of [FLOOR, CEIL]) {
        const a = low.anchors[level * 2 + lowSide]
        const b = high.anchors[level * 2 + highSide]
        if (a >= b) continue
        const candidate =
          rangeCost(SCOPE_GRAINS[level], a, b) +
          low.cost[level * 2 + lowSide] +
          high.cost[level * 2 + highSide]
        if (candidate < bestCost) {
          bestCost = candidate
          best = [level, lowSide, highSide]
        }
      }
    }
  }
  if (!best) {
    plan.rawSpan(bucket, low.bound.micros, high.bound.micros)
    return
  }
  const [level, lowSide, highSide] = best
  // I(from, a) = −I(a, from): the low bound's spans reversed.
  addReach(plan, bucket, low, level, lowSide, true)
  const [a, b] = [low.anchors[level * 2 + lowSide], high.anchors[level * 2 + highSide]]
  plan.period(bucket, SCOPE_GRAINS[level], a, b)
  addReach(plan, bucket, high, level, highSide, false)
}

/** The parts of every bucket (half-open, epoch microseconds, in order), each once. */
export function planScopeReads(buckets: ReadonlyArray<{ from: bigint; to: bigint }>): ScopePlan {
  const plan = new PlanBuilder()
  let previous: Reach | undefined
  for (const [index, bucket] of buckets.entries()) {
    // Buckets tile their range: a bucket's start is usually the previous one's end.
    const low: Reach =
      previous?.bound.micros === bucket.from ? previous : reachOf(boundOf(bucket.from))
    const high = reachOf(boundOf(bucket.to))
    previous = high
    addBucket(plan, index, low, high)
  }
  return plan.plan()
}
