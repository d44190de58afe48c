/*
| `node ace auth:prune`: deletes expired credentials and proofs. Safe from cron on
| several hosts at once: a transaction-scoped advisory lock, held for the whole run,
| lets one run at a time and the others return immediately; deleting what is expired
| is idempotent.
|
| The deletes go in batches of PRUNE_BATCH_ROWS rows, each its own short transaction,
| so a backlog never holds row locks or a long transaction. An aborted `signal` (the
| command's SIGTERM or SIGINT) stops the run before its next batch: the batches done
| stay deleted, the run is audited as interrupted with its counts, and the next run
| deletes the rest.
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { actorFor, audit } from '#services/audit/audit_trail'
import { SYSTEM_ACTOR } from '#auth/actor'
import { recordDeliveries } from '#support/operator_metrics'

const PRUNE_LOCK_KEY = 7_314_202_611
export const PRUNE_BATCH_ROWS = 1_000

/** table → column holding the expiry. Each feature that stores expiring proofs adds its table here. */
export const EXPIRING_TABLES: Record<string, string> = {
  auth_access_tokens: 'expires_at',
  oauth_access_tokens: 'expires_at',
  credential_deliveries: 'expires_at',
  password_reset_tokens: 'expires_at',
  // Reset mails past the hour in which they count against the cap.
  password_reset_mailings: 'expires_at',
}

/** What an expired email change leaves: the proofs go, the user row stays. */
const CLEARED_EMAIL_CHANGE = {
  pending_email: null,
  pending_email_expires_at: null,
  pending_email_otp_hash: null,
  pending_email_proof_hash: null,
  pending_email_verification_id: null,
  pending_email_failed_attempts: 0,
}

export interface PruneOptions {
  /** The instant expiry is judged against. */
  now?: DateTime
  batchRows?: number
  /** Aborted: stop before the next batch (the result says interrupted). */
  signal?: AbortSignal
}

export type PruneResult = {
  /** Another run held the lock: this one did nothing. */
  skipped: boolean
  /** Rows deleted (cleared, for pending_email_changes) per table. */
  deleted: Record<string, number>
  /** Stopped by the signal before the work was done. */
  interrupted: boolean
}

const affected = (rows: unknown) => (Array.isArray(rows) ? rows.length : Number(rows))

/** One batch of `table`'s expired rows, deleted in a transaction of its own. */
function deleteBatch(table: string, column: string, at: Date, rows: number) {
  return db.transaction(async (trx) =>
    affected(
      await trx
        .from(table)
        .whereIn('id', trx.from(table).where(column, '<=', at).select('id').limit(rows))
        .delete()
    )
  )
}

/** One batch of expired email changes, cleared in a transaction of its own. */
function clearEmailChangeBatch(at: Date, rows: number) {
  return db.transaction(async (trx) =>
    affected(
      await trx
        .from('users')
        .whereIn(
          'id',
          trx
            .from('users')
            .whereNotNull('pending_email')
            .where('pending_email_expires_at', '<=', at)
            .select('id')
            .limit(rows)
        )
        .update(CLEARED_EMAIL_CHANGE)
    )
  )
}

export async function pruneExpiredCredentials(options: PruneOptions = {}): Promise<PruneResult> {
  const at = (options.now ?? DateTime.now()).toJSDate()
  const batchRows = options.batchRows ?? PRUNE_BATCH_ROWS
  // The lock's transaction stays open for the run; the batches commit beside it.
  return db.transaction(async (lock) => {
    const acquired = await lock.rawQuery('select pg_try_advisory_xact_lock(?) as acquired', [
      PRUNE_LOCK_KEY,
    ])
    if (!acquired.rows[0]?.acquired) return { skipped: true, deleted: {}, interrupted: false }

    const result: PruneResult = { skipped: false, deleted: {}, interrupted: false }
    const batches: Array<[string, () => Promise<number>]> = [
      ...Object.entries(EXPIRING_TABLES).map(([table, column]): [string, () => Promise<number>] => [
        table,
        () => deleteBatch(table, column, at, batchRows),
      ]),
      ['pending_email_changes', () => clearEmailChangeBatch(at, batchRows)],
    ]
    try {
      for (const [name, batch] of batches) {
        result.deleted[name] = 0
        while (!result.interrupted) {
          if (options.signal?.aborted) {
            result.interrupted = true
            break
          }
          const done = await batch()
          result.deleted[name] += done
          if (name === 'credential_deliveries') recordDeliveries('expired', done)
          if (done < batchRows) break
        }
        if (result.interrupted) break
      }
    } catch (error) {
      await audit(undefined, actorFor(SYSTEM_ACTOR, { kind: 'system' }), {
        action: 'auth.prune',
        outcome: 'failure',
        metadata: { deleted: result.deleted },
      }).catch(() => {})
      throw error
    }
    await audit(lock, actorFor(SYSTEM_ACTOR, { kind: 'system' }), {
      action: 'auth.prune',
      ...(result.interrupted
        ? { outcome: 'failure' as const, reason: 'interrupted' }
        : { outcome: 'success' as const }),
      metadata: { deleted: result.deleted, ...(result.interrupted && { interrupted: true }) },
    })
    return result
  })
}
