/*
| `node ace history:purge [--dry-run]` (portal-api.md › Collections, "History
| behavior"; decisions.md §4): evidence whose retain_until has passed and that is not
| on legal hold loses its snapshot and the stored projection of it (its payload, with
| its size: the body, evidence_storage.ts), and gets `purged_at`; the record stays, so
| history shows the item as purged and coverage can say `purged`. Nothing else about
| it changes.
|
| A month of evidence whose end is past is purged whole (its partition emptied, the
| month recorded as purged, then its partition dropped: purged_partitions.ts), smaller
| months and the rest row by row in batches of
| short transactions (purge_months.ts). Purges started from cron on several hosts share
| the work: a whole month is purged by one of them, and rows are claimed with
| `FOR UPDATE SKIP LOCKED`, so every event is purged exactly once. Running it again
| finds nothing to do. A run is audited once, as a system job, with its counts.
| `--dry-run` only counts (no writes, no audit record).
|
| An aborted `signal` (the command's SIGTERM or SIGINT) stops the run before its next
| month or batch: what is done stays purged, the run is audited as interrupted with its
| counts, and the next run purges the rest.
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { audit } from '#services/audit/audit_trail'
import { SYSTEM_ACTOR } from '#auth/actor'
import { recordPurgedRows } from '#support/operator_metrics'
import { ensureBodyPartitions } from '#services/collections/history/evidence_storage'
import {
  PARTITION_PURGE_MIN_EVENTS,
  planPurge,
  purgeMonth,
  purgeRows,
} from '#services/collections/history/purge_months'
import { dropPurgedPartitions } from '#services/collections/history/purged_partitions'

export const PURGE_BATCH_SIZE = 1_000

export interface PurgeOptions {
  dryRun?: boolean
  batchSize?: number
  /** The instant retention is judged against (tests control it). */
  now?: DateTime
  /** Aborted: stop before the next batch (the result says interrupted). */
  signal?: AbortSignal
  /** Events due from which an ended month is purged whole (PARTITION_PURGE_MIN_EVENTS). */
  wholeMonthEvents?: number
}

export type PurgeResult = {
  dry_run: boolean
  /** Evidence past retention, not on hold and not yet purged, when the run started. */
  due: number
  /** Evidence this run purged (0 on a dry run; less than `due` when another run shared the work). */
  purged: number
  /** Evidence past retention kept because it is on legal hold. */
  on_legal_hold: number
  /** Batches and whole months this run purged. */
  batches: number
  /** Of those, the months purged whole. */
  months: number
  /** Emptied month partitions this run dropped, this run's and earlier runs' (0 on a dry run). */
  partitions_dropped: number
  as_of: string
  /** Stopped by the signal before the work was done. */
  interrupted: boolean
}

/** The months whose partitions a run creates ahead: this one and the next two. */
function monthsAhead(now: DateTime) {
  return [0, 1, 2].map((ahead) => now.startOf('month').plus({ months: ahead }).toISODate()!)
}

export async function purgeExpiredEvidence(options: PurgeOptions = {}): Promise<PurgeResult> {
  const now = (options.now ?? DateTime.now()).toUTC()
  const at = now.toJSDate()
  const batchSize = options.batchSize ?? PURGE_BATCH_SIZE
  const plan = await planPurge(at, options.wholeMonthEvents ?? PARTITION_PURGE_MIN_EVENTS)
  const result: PurgeResult = {
    dry_run: options.dryRun === true,
    due: [...plan.dueByMonth.values()].reduce((sum, due) => sum + due, 0),
    purged: 0,
    on_legal_hold: plan.onLegalHold,
    batches: 0,
    months: 0,
    partitions_dropped: 0,
    as_of: now.toISO()!,
    interrupted: false,
  }
  if (options.dryRun) return result

  const done = (purged: number) => {
    result.batches++
    result.purged += purged
    recordPurgedRows(purged)
  }
  const stopped = () => (result.interrupted ||= options.signal?.aborted === true)
  try {
    for (const month of plan.wholeMonths) {
      if (stopped()) break
      const purged = await purgeMonth(month, at)
      if (purged === null) continue
      result.months++
      done(purged)
    }
    while (plan.rowMonths.length > 0 && !stopped()) {
      const purged = await db.transaction((trx) => purgeRows(trx, plan.rowMonths, at, batchSize))
      if (purged === 0) break
      done(purged)
    }
    // Then the partitions of the months purged whole, this run's and earlier runs'.
    if (!stopped()) result.partitions_dropped = await dropPurgedPartitions(options.signal)
    // Last: creating one locks the bodies' table, which must not hold the purge back.
    await ensureBodyPartitions(monthsAhead(now))
  } catch (error) {
    await audit(undefined, SYSTEM_ACTOR, {
      action: 'history.purge',
      outcome: 'failure',
      metadata: {
        purged: result.purged,
        batches: result.batches,
        months: result.months,
        partitions_dropped: result.partitions_dropped,
      },
    }).catch(() => {})
    throw error
  }
  await audit(undefined, SYSTEM_ACTOR, {
    action: 'history.purge',
    ...(result.interrupted
      ? { outcome: 'failure', reason: 'interrupted' }
      : { outcome: 'success' }),
    metadata: {
      due: result.due,
      purged: result.purged,
      on_legal_hold: result.on_legal_hold,
      batches: result.batches,
      months: result.months,
      partitions_dropped: result.partitions_dropped,
      ...(result.interrupted && { interrupted: true }),
    },
  })
  return result
}
