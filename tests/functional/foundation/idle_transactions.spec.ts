/*
| A transaction left idle is ended by PostgreSQL (config/database.ts): its locks are
| freed, and the pool hands out working connections afterwards.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { getProfile } from '#tests/helpers/requests'

test.group('Idle transactions', (group) => {
  group.each.setup(() => resetState())

  test('every connection of the service ends a transaction idle for a minute', async ({
    assert,
  }) => {
    const shown = await Promise.all(
      [1, 2, 3].map(() =>
        db.transaction(async (trx) => {
          const result = await trx.rawQuery('SHOW idle_in_transaction_session_timeout')
          return result.rows[0].idle_in_transaction_session_timeout
        })
      )
    )
    assert.deepEqual(shown, ['1min', '1min', '1min'])
  })

  test('a transaction ended for idling frees its row locks, and the service answers on the next requests', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    const trx = await db.transaction()
    // The bound is shortened for this transaction only: PostgreSQL's clock cannot be
    // controlled, and the rule under test is what follows the end, not the minute.
    await trx.rawQuery(`SET LOCAL idle_in_transaction_session_timeout = 200`)
    await trx.rawQuery('SELECT id FROM users WHERE id = ? FOR UPDATE', [user.id])

    // Waits on the lock itself (not a sleep): it is granted once PostgreSQL ends the
    // idle transaction, well within its own 10 s bound.
    const locked = await db.transaction(async (other) => {
      await other.rawQuery(`SET LOCAL lock_timeout = '10s'`)
      const result = await other.rawQuery('SELECT id FROM users WHERE id = ? FOR UPDATE', [user.id])
      return result.rows.length
    })
    assert.equal(locked, 1)

    await assert.rejects(() => trx.rawQuery('SELECT 1'))
    await trx.rollback().catch(() => {})

    const answers = await Promise.all([1, 2, 3, 4].map(() => getProfile(client, bearer)))
    assert.deepEqual(
      answers.map((response) => response.status()),
      [200, 200, 200, 200]
    )
  })
})
