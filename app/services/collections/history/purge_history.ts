/*
| `node ace history:purge [--dry-run]` (portal-api.md › Collections, "History
| behavior"; decisions.md §4): evidence whose retain_until has passed and that is not
| on legal hold loses its snapshot (ciphertext and size set to null) and the stored
| projection of it (its payload), and gets `purged_at`; the row stays, so history shows the item as purged and coverage can
| say `purged`. Nothing else about the row changes.
|
| Work goes in batches of short transactions. Each batch claims its rows with
| `FOR UPDATE SKIP LOCKED`, so purges started from cron on several hosts share the
| work instead of waiting on each other, and a row is purged exactly once: a row a
| concurrent run already purged no longer matches when its lock is granted. Running
| it again finds nothing to do. A run is audited once, as a system job, with its
| counts. `--dry-run` only counts (no writes, no audit record).
|
| An aborted `signal` (the command's SIGTERM or SIGINT) stops the run before its next
| batch: the batches done stay purged, the run is audited as interrupted with its
| counts, and the next run purges the rest.
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { audit } from '#services/audit/audit_trail'
import { SYSTEM_ACTOR } from '#auth/actor'
import { recordPurgedRows } from '#support/operator_metrics'

export const PURGE_BATCH_SIZE = 1_000

export interface PurgeOptions {
  dryRun?: boolean
  batchSize?: number
  /** The instant retention is judged against (tests control it). */
  now?: DateTime
  /** Aborted: stop before the next batch (the result says interrupted). */
  signal?: AbortSignal
}

export type PurgeResult = {
  dry_run: boolean
  /** Evidence past retention, not on hold and not yet purged, when the run started. */
  due: number
  /** Evidence this run purged (0 on a dry run; less than `due` when another run shared the work). */
  purged: number
  /** Evidence past retention kept because it is on legal hold. */
  on_legal_hold: number
  batches: number
  as_of: string
  /** Stopped by the signal before the work was done. */
  interrupted: boolean
}

const PURGE_BATCH = `
WITH due AS (
  SELECT id FROM exchange_evidence
  WHERE retain_until <= ? AND purged_at IS NULL AND NOT legal_hold
  ORDER BY retain_until
  LIMIT ?
  FOR UPDATE SKIP LOCKED
)
UPDATE exchange_evidence e
SET snapshot_ciphertext = NULL, snapshot_size = NULL, projection_ciphertext = NULL, purged_at = ?
FROM due
WHERE e.id = due.id
RETURNING e.id`

async function count(now: Date, legalHold: boolean) {
  const row = await db
    .from('exchange_evidence')
    .where('retain_until', '<=', now)
    .whereNull('purged_at')
    .where('legal_hold', legalHold)
    .count('* as total')
    .first()
  return Number(row?.total ?? 0)
}

export async function purgeExpiredEvidence(options: PurgeOptions = {}): Promise<PurgeResult> {
  const now = (options.now ?? DateTime.now()).toUTC()
  const at = now.toJSDate()
  const batchSize = options.batchSize ?? PURGE_BATCH_SIZE
  const result: PurgeResult = {
    dry_run: options.dryRun === true,
    due: await count(at, false),
    purged: 0,
    on_legal_hold: await count(at, true),
    batches: 0,
    as_of: now.toISO()!,
    interrupted: false,
  }
  if (options.dryRun) return result

  try {
    for (;;) {
      if (options.signal?.aborted) {
        result.interrupted = true
        break
      }
      const purged = await db.transaction(async (trx) => {
        const rows = await trx.rawQuery(PURGE_BATCH, [at, batchSize, at])
        return rows.rows.length as number
      })
      if (purged === 0) break
      result.batches++
      result.purged += purged
      recordPurgedRows(purged)
    }
  } catch (error) {
    await audit(undefined, SYSTEM_ACTOR, {
      action: 'history.purge',
      outcome: 'failure',
      metadata: { purged: result.purged, batches: result.batches },
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
      ...(result.interrupted && { interrupted: true }),
    },
  })
  return result
}
