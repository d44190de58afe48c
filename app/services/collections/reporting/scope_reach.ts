/*
| The bound side of the scope plan (scope_plan.ts; migration 0980, docs/reporting.md):
| the rollup's grains, what reading costs, and for one bucket bound the anchors around
| it at every grain with the cheapest way to reach the bound from each. Pure.
*/
import { civilDate, daysFromCivil } from '#support/instants'

export type ScopeGrain = 'month' | 'day' | 'hour' | 'quarter'
export const SCOPE_GRAINS: readonly ScopeGrain[] = ['month', 'day', 'hour', 'quarter']

const QUARTER_MS = 900_000
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const FIXED_MS: Record<Exclude<ScopeGrain, 'month'>, number> = {
  day: DAY_MS,
  hour: HOUR_MS,
  quarter: QUARTER_MS,
}

/*
| Reading costs, in rollup rows: a range of one grain costs a probe and a row per
| period; raw rows are as many as the span holds, which the plan cannot know, so a
| raw span is charged by the started minute at a busy merchant's density.
*/
const PROBE_COST = 1
const RAW_PROBE_COST = 2
const RAW_COST_PER_MINUTE = 2

/** A bound in milliseconds (floor) and whether it has microseconds beyond them. */
interface Bound {
  micros: bigint
  ms: number
  exactMs: boolean
}

export function boundOf(micros: bigint): Bound {
  let ms = micros / 1000n
  if (ms * 1000n > micros) ms -= 1n
  return { micros, ms: Number(ms), exactMs: ms * 1000n === micros }
}

function monthIndex(ms: number): number {
  const { year, month } = civilDate(Math.floor(ms / DAY_MS))
  return year * 12 + month - 1
}

function monthStart(index: number): number {
  return daysFromCivil(Math.floor(index / 12), (index % 12) + 1, 1) * DAY_MS
}

/** How many periods of `grain` lie between two of its starts (epoch ms). */
function periodsBetween(grain: ScopeGrain, from: number, to: number): number {
  const span = grain === 'month' ? monthIndex(to) - monthIndex(from) : (to - from) / FIXED_MS[grain]
  return Math.abs(span)
}

export function rangeCost(grain: ScopeGrain, from: number, to: number): number {
  return from === to ? 0 : PROBE_COST + periodsBetween(grain, from, to)
}

export const FLOOR = 0
export const CEIL = 1
export const LAST = SCOPE_GRAINS.length - 1

/*
| For a bound x, per grain (level) and side (FLOOR, CEIL): the anchor (the grain's
| period start at or before x, at or after x), and the cheapest way to reach x from
| it through finer grains only: its cost, and the side taken at the next level. Flat
| arrays indexed level * 2 + side: this runs for every bound of a 366-bucket chart.
*/
export interface Reach {
  bound: Bound
  anchors: number[]
  cost: number[]
  next: number[]
}

export function reachOf(bound: Bound): Reach {
  const anchors: number[] = []
  for (const grain of SCOPE_GRAINS) {
    const floor =
      grain === 'month'
        ? monthStart(monthIndex(bound.ms))
        : Math.floor(bound.ms / FIXED_MS[grain]) * FIXED_MS[grain]
    const onIt = floor === bound.ms && bound.exactMs
    const ceil = onIt
      ? floor
      : grain === 'month'
        ? monthStart(monthIndex(bound.ms) + 1)
        : floor + FIXED_MS[grain]
    anchors.push(floor, ceil)
  }
  const cost: number[] = []
  const next: number[] = []
  for (const side of [FLOOR, CEIL]) {
    const anchor = anchors[LAST * 2 + side]
    const onIt = anchor === bound.ms && bound.exactMs
    // Raw minutes started between the anchor and x (a sub-millisecond rest counts).
    const ms = Math.abs(bound.ms - anchor) + (bound.exactMs ? 0 : 1)
    cost[LAST * 2 + side] = onIt ? 0 : RAW_PROBE_COST + RAW_COST_PER_MINUTE * Math.ceil(ms / 60_000)
  }
  for (let level = LAST - 1; level >= 0; level--) {
    const finer = SCOPE_GRAINS[level + 1]
    for (const side of [FLOOR, CEIL]) {
      const anchor = anchors[level * 2 + side]
      let best = Infinity
      for (const finerSide of [FLOOR, CEIL]) {
        const index = (level + 1) * 2 + finerSide
        const candidate = rangeCost(finer, anchor, anchors[index]) + cost[index]
        if (candidate < best) {
          best = candidate
          next[level * 2 + side] = finerSide
        }
      }
      cost[level * 2 + side] = best
    }
  }
  return { bound, anchors, cost, next }
}

export function rawCost(fromMicros: bigint, toMicros: bigint): number {
  const micros = toMicros - fromMicros
  return RAW_PROBE_COST + RAW_COST_PER_MINUTE * Number((micros + 59_999_999n) / 60_000_000n)
}
