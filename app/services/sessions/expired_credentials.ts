/*
| `node ace auth:prune`: deletes expired credentials and proofs. Safe from cron on
| several hosts at once: a transaction-scoped advisory lock lets one run at a time and
| the others return immediately; deleting what is expired is idempotent.
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { actorFor, audit } from '#services/audit/audit_trail'
import { SYSTEM_ACTOR } from '#auth/actor'
import { recordDeliveries } from '#support/operator_metrics'

const PRUNE_LOCK_KEY = 7_314_202_611

/** table → column holding the expiry. Each feature that stores expiring proofs adds its table here. */
export const EXPIRING_TABLES: Record<string, string> = {
  auth_access_tokens: 'expires_at',
  oauth_access_tokens: 'expires_at',
  credential_deliveries: 'expires_at',
  password_reset_tokens: 'expires_at',
  // Reset mails past the hour in which they count against the cap.
  password_reset_mailings: 'expires_at',
}

export async function pruneExpiredCredentials(now = DateTime.now()) {
  return db.transaction(async (trx) => {
    const lock = await trx.rawQuery('select pg_try_advisory_xact_lock(?) as acquired', [
      PRUNE_LOCK_KEY,
    ])
    if (!lock.rows[0]?.acquired) return { skipped: true, deleted: {} as Record<string, number> }
    const deleted: Record<string, number> = {}
    for (const [table, column] of Object.entries(EXPIRING_TABLES)) {
      const rows = await trx.from(table).where(column, '<=', now.toJSDate()).delete()
      deleted[table] = Array.isArray(rows) ? rows.length : Number(rows)
    }
    // Expired email changes: the proofs go; the user row stays.
    deleted.pending_email_changes = await trx
      .from('users')
      .whereNotNull('pending_email')
      .where('pending_email_expires_at', '<=', now.toJSDate())
      .update({
        pending_email: null,
        pending_email_expires_at: null,
        pending_email_otp_hash: null,
        pending_email_proof_hash: null,
        pending_email_verification_id: null,
        pending_email_failed_attempts: 0,
      })
      .then((rows) => (Array.isArray(rows) ? rows.length : Number(rows)))
    trx.after('commit', () => recordDeliveries('expired', deleted.credential_deliveries ?? 0))
    await audit(trx, actorFor(SYSTEM_ACTOR, { kind: 'system' }), {
      action: 'auth.prune',
      outcome: 'success',
      metadata: { deleted },
    })
    return { skipped: false, deleted }
  })
}
