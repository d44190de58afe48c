/*
| The one statement of a metrics or chart request without a brand filter
| (docs/reporting.md), built from planScopeReads: per rollup grain, the parts' rows of
| `transaction_scope_totals`, and the raw parts' transactions, each summed per slot.
| Pure, so the service runs it and bench/reporting.ts times the very same text.
|
| A grain's parts are cut at all their bounds (the grain's thresholds): a slot is one
| interval between two consecutive thresholds, found for each rollup row with
| `width_bucket`, and counts for the buckets of every part that covers it. Slots close
| together are read as one range scan of the primary key, the rows in between skipped
| by the slot mask: a daily chart in Asia/Manila reads its 8-hour edges as one scan of
| the year's hour rows rather than 367 probes. Slots far apart are a probe each.
*/
import { sqlInstant, sqlInstantOfMs } from '#support/instants'
import { STATUS_COUNTED_AS } from '#models/collections_vocabulary'
import type { PartUse, PeriodPart, ScopePlan } from '#services/collections/reporting/scope_plan'
import { SCOPE_GRAINS, type ScopeGrain } from '#services/collections/reporting/scope_reach'

export interface ScopeKey {
  merchantId: number
  environment: string
  currency: string
}

/** Slots apart by fewer periods than this are read in one scan (a probe costs about as many rows). */
const SCAN_THROUGH_PERIODS = 64

const PERIOD_MS: Record<Exclude<ScopeGrain, 'month'>, number> = {
  day: 86_400_000,
  hour: 3_600_000,
  quarter: 900_000,
}
// Month gaps are counted at their shortest, 28 days.
const periodsIn = (grain: ScopeGrain, ms: number) =>
  ms / (grain === 'month' ? 28 * PERIOD_MS.day : PERIOD_MS[grain])

const timestamps = (values: number[]) =>
  `{${values.map((value) => `"${sqlInstantOfMs(value)}"`).join(',')}}`

interface GrainReads {
  /** Range scans, half-open, epoch milliseconds. */
  scans: { from: number[]; to: number[] }
  /** Sorted bounds of the grain's parts; slot i is [thresholds[i - 1], thresholds[i]). */
  thresholds: number[]
  /** Uses of each slot (index 0 unused: slots start at 1, as width_bucket counts). */
  slots: PartUse[][]
}

function grainReads(grain: ScopeGrain, parts: PeriodPart[]): GrainReads {
  const bounds = new Float64Array(parts.length * 2)
  parts.forEach((part, index) => {
    bounds[2 * index] = part.from
    bounds[2 * index + 1] = part.to
  })
  bounds.sort()
  const thresholds: number[] = []
  for (const bound of bounds) if (thresholds.at(-1) !== bound) thresholds.push(bound)
  const indexOf = new Map(thresholds.map((value, index) => [value, index]))
  const slots: PartUse[][] = thresholds.map(() => [])
  for (const part of parts) {
    for (let slot = indexOf.get(part.from)! + 1; slot <= indexOf.get(part.to)!; slot++) {
      slots[slot].push(...part.uses)
    }
  }
  const scans: GrainReads['scans'] = { from: [], to: [] }
  for (let slot = 1; slot < thresholds.length; slot++) {
    if (slots[slot].length === 0) continue
    const last = scans.to.length - 1
    const from = thresholds[slot - 1]
    if (last >= 0 && periodsIn(grain, from - scans.to[last]) < SCAN_THROUGH_PERIODS) {
      scans.to[last] = thresholds[slot]
    } else {
      scans.from.push(from)
      scans.to.push(thresholds[slot])
    }
  }
  return { scans, thresholds, slots }
}

export interface ScopeStatement {
  /** SQL with `?` placeholders (knex style). */
  sql: string
  bindings: unknown[]
  /** The uses of each row: by its `grain` (or `raw`), then its `slot`. */
  slots: Record<ScopeGrain | 'raw', PartUse[][]>
}

const FIGURES = [
  'paid_count',
  'pending_count',
  'rejected_count',
  'paid_amount_total',
  'paid_null_amount_count',
] as const

const keyOf = (alias: string) =>
  `${alias}.merchant_id = ? AND ${alias}.environment = ? AND ${alias}.currency = ?`

// One section per grain, in SCOPE_GRAINS order: a LATERAL subquery per scan, kept
// apart by OFFSET 0 so that each is its own range of the primary key.
const rollupSection = (grain: ScopeGrain) => `
  SELECT '${grain}' AS grain, s.slot, ${FIGURES.map((figure) => `sum(s.${figure}) AS ${figure}`).join(', ')}
    FROM unnest(?::timestamptz[], ?::timestamptz[]) AS r (lo, hi)
   CROSS JOIN LATERAL (
     SELECT width_bucket(s.period_start, ?::timestamptz[]) AS slot, ${FIGURES.map((figure) => `s.${figure}`).join(', ')}
       FROM transaction_scope_totals AS s
      WHERE ${keyOf('s')} AND s.grain = '${grain}'
        AND s.period_start >= r.lo AND s.period_start < r.hi
     OFFSET 0) AS s
   WHERE (?::boolean[])[s.slot]
   GROUP BY s.slot`

const SUCCESSFUL = STATUS_COUNTED_AS.successful

// Raw parts are short (under a quarter-hour each): one index range each, slot = part.
const RAW_SECTION = `
  SELECT 'raw' AS grain, r.slot::int, count(*) FILTER (WHERE t.status = '${SUCCESSFUL}') AS paid_count,
         count(*) FILTER (WHERE t.status = '${STATUS_COUNTED_AS.pending}') AS pending_count,
         count(*) FILTER (WHERE t.status = '${STATUS_COUNTED_AS.rejected}') AS rejected_count,
         coalesce(sum(t.amount) FILTER (WHERE t.status = '${SUCCESSFUL}'), 0) AS paid_amount_total,
         count(*) FILTER (WHERE t.status = '${SUCCESSFUL}' AND t.amount IS NULL) AS paid_null_amount_count
    FROM unnest(?::timestamptz[], ?::timestamptz[]) WITH ORDINALITY AS r (lo, hi, slot)
   CROSS JOIN LATERAL (
     SELECT t.status, t.amount
       FROM transactions AS t
      WHERE ${keyOf('t')} AND t.created_at >= r.lo AND t.created_at < r.hi
     OFFSET 0) AS t
   GROUP BY r.slot`

const SQL = [...SCOPE_GRAINS.map(rollupSection), RAW_SECTION].join('\n  UNION ALL')

export function scopeAggregateStatement(key: ScopeKey, plan: ScopePlan): ScopeStatement {
  const keyBindings = [key.merchantId, key.environment, key.currency]
  const bindings: unknown[] = []
  const slots = {} as ScopeStatement['slots']
  for (const grain of SCOPE_GRAINS) {
    const reads = grainReads(
      grain,
      plan.periods.filter((part) => part.grain === grain)
    )
    slots[grain] = reads.slots
    bindings.push(
      timestamps(reads.scans.from),
      timestamps(reads.scans.to),
      timestamps(reads.thresholds),
      ...keyBindings,
      `{${reads.slots
        .slice(1)
        .map((uses) => (uses.length > 0 ? 't' : 'f'))
        .join(',')}}`
    )
  }
  slots.raw = [[], ...plan.raw.map((part) => part.uses)]
  bindings.push(
    `{${plan.raw.map((part) => `"${sqlInstant(part.from)}"`).join(',')}}`,
    `{${plan.raw.map((part) => `"${sqlInstant(part.to)}"`).join(',')}}`,
    ...keyBindings
  )
  return { sql: SQL, bindings, slots }
}
