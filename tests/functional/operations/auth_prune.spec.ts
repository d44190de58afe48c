/*
| `node ace auth:prune` (decisions.md §4): deletes expired PATs, machine tokens and
| one-time proofs, keeps live ones, and is safe when several hosts run it at once.
*/
import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { advanceClock, resetState } from '#tests/helpers/database'
import { createMerchantWithUser, createPortalClient, issuePat } from '#tests/helpers/portal'
import { runCommand } from '#tests/helpers/foundation'
import { printedJson, runAce, startAce, untilWaitingForLockOn } from '#tests/helpers/ace_process'
import AuthPrune from '../../../commands/auth_prune.js'

const PRUNE_LOCK_KEY = 7_314_202_611

test.group('auth:prune', (group) => {
  group.each.setup(() => resetState())

  test('clears expired pending email changes and keeps live ones', async ({ assert }) => {
    const { user } = await createMerchantWithUser()
    const { user: other } = await createMerchantWithUser()
    user.merge({
      pendingEmail: 'old-change@example.test',
      pendingEmailExpiresAt: DateTime.now().plus({ minutes: 1 }),
    })
    await user.save()
    other.merge({
      pendingEmail: 'live-change@example.test',
      pendingEmailExpiresAt: DateTime.now().plus({ minutes: 30 }),
    })
    await other.save()
    advanceClock(5 * 60 * 1000)

    const result = await runCommand(AuthPrune, [])
    assert.equal(result.json().deleted.pending_email_changes, 1)
    await user.refresh()
    await other.refresh()
    assert.isNull(user.pendingEmail)
    assert.isNull(user.pendingEmailExpiresAt)
    assert.equal(other.pendingEmail, 'live-change@example.test')
  })

  test('deletes expired PATs, keeps unexpired ones and audits the run', async ({ assert }) => {
    const client = await createPortalClient()
    const { user } = await createMerchantWithUser()
    await issuePat(user, client, { minutes: 5 })
    await issuePat(user, client, { minutes: 120 })
    advanceClock(10 * 60 * 1000)

    const result = await runCommand(AuthPrune, [])
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    const printed = result.json()
    assert.isFalse(printed.skipped)
    assert.equal(printed.deleted.auth_access_tokens, 1)
    const remaining = await db.from('auth_access_tokens').select('expires_at')
    assert.lengthOf(remaining, 1)
    assert.equal(printed.deleted.password_reset_tokens, 0)
    const audit = await db.from('audit_logs').where('action', 'auth.prune').firstOrFail()
    assert.equal(audit.actor_type, 'system')
  })

  test('a second run while another host holds the prune lock skips without deleting', async ({
    assert,
  }) => {
    const client = await createPortalClient()
    const { user } = await createMerchantWithUser()
    await issuePat(user, client, { minutes: 1 })
    advanceClock(5 * 60 * 1000)

    const other = await db.transaction()
    try {
      await other.rawQuery('select pg_advisory_xact_lock(?)', [PRUNE_LOCK_KEY])
      const result = await runCommand(AuthPrune, [])
      assert.equal(result.exitCode, 0)
      assert.isTrue(result.json().skipped)
      assert.lengthOf(await db.from('auth_access_tokens'), 1)
    } finally {
      await other.rollback()
    }
    const again = await runCommand(AuthPrune, [])
    assert.equal(again.json().deleted.auth_access_tokens, 1)
  })

  test('deletes in batches and stops after the batch in progress on SIGTERM: exit 143, audited as interrupted; the next run deletes the rest', async ({
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    await db.rawQuery(
      `INSERT INTO password_reset_mailings (user_id, sent_at, expires_at)
       SELECT ?, now() - interval '2 hours', now() - interval '1 hour' FROM generate_series(1, 2500)`,
      [user.id]
    )
    // The command is held on a lock the test takes, signalled once it waits on it,
    // and let go once it says it received the signal (conditions, not clocks).
    const lock = await db.transaction()
    const command = startAce(['auth:prune'])
    try {
      await lock.rawQuery('LOCK TABLE password_reset_mailings IN SHARE MODE')
      await untilWaitingForLockOn('password_reset_mailings')
      command.child.kill('SIGTERM')
      await command.stderrMatches(/SIGTERM received/)
    } finally {
      await lock.rollback()
    }
    const { code } = await command.exited(15_000)
    assert.equal(code, 143, command.stderr())
    const printed = printedJson(command.stdout())
    assert.isTrue(printed.interrupted)
    assert.equal(printed.deleted.password_reset_mailings, 1_000)
    assert.lengthOf(await db.from('password_reset_mailings'), 1_500)
    const records = await db.from('audit_logs').where('action', 'auth.prune')
    assert.lengthOf(records, 1)
    assert.equal(records[0].reason, 'interrupted')
    assert.deepInclude(records[0].metadata, {
      interrupted: true,
      deleted: printed.deleted,
    })

    const again = await runAce(['auth:prune'])
    assert.equal(again.code, 0, again.stderr)
    const second = printedJson(again.stdout)
    assert.isFalse(second.interrupted)
    assert.equal(second.deleted.password_reset_mailings, 1_500)
    assert.lengthOf(await db.from('password_reset_mailings'), 0)
  }).timeout(600_000)
})
