/*
| `node ace auth:prune` (decisions.md §4): deletes expired PATs, machine tokens and
| one-time proofs, keeps live ones, and is safe when several hosts run it at once.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { advanceClock, resetState } from '#tests/helpers/database'
import { createMerchantWithUser, createPortalClient, issuePat } from '#tests/helpers/portal'
import { runCommand } from '#tests/helpers/foundation'
import AuthPrune from '../../../commands/auth_prune.js'

const PRUNE_LOCK_KEY = 7_314_202_611

test.group('auth:prune', (group) => {
  group.each.setup(() => resetState())

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
})
