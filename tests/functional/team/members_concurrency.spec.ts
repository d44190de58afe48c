import { test } from '@japa/runner'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { Assert } from '@japa/assert'
import type { ApiClient, ApiResponse } from '@japa/api-client'
import { signedInMember, teammate } from '#tests/helpers/portal'
import { resetState } from '#tests/helpers/database'
import { whileTeamLocked } from '#tests/helpers/team'
import User, { ROLES } from '#models/user'
import { route } from '#tests/helpers/routes'

const ROUNDS = 5

/*
| The loser of a race between two administrators is refused for whichever reason it
| meets first, all of them contract answers: the winner demoted or removed the loser's
| own account, whose tokens it revoked (401 ACCESS_TOKEN_INVALID when the loser had not
| signed in yet, 403 FORBIDDEN when it was waiting for the team lock), or the winner's
| change made the loser's target the last administrator (409 LAST_ADMINISTRATOR). What must never
| happen is two successes, or no active administrator left.
*/
const LOSER_CODES: Record<number, string> = {
  409: 'LAST_ADMINISTRATOR',
  401: 'ACCESS_TOKEN_INVALID',
  403: 'FORBIDDEN',
}

function assertOneWinner(assert: Assert, responses: ApiResponse[], success: number, round: number) {
  const winners = responses.filter((response) => response.status() === success)
  assert.lengthOf(winners, 1, `round ${round}: exactly one succeeds`)
  const loser = responses.find((response) => response.status() !== success)!
  assert.property(LOSER_CODES, String(loser.status()), `round ${round}`)
  assert.equal(loser.body().error_code, LOSER_CODES[loser.status()], `round ${round}`)
}

async function activeAdministrators(merchantId: number) {
  return User.query()
    .where('merchant_id', merchantId)
    .where('role', ROLES.administrator)
    .where('is_active', true)
}

test.group('LAST_ADMINISTRATOR under concurrency', (group) => {
  group.each.setup(() => resetState())

  test('two administrators demoting each other at the same instant leave exactly one active administrator', async ({
    client,
    assert,
  }) => {
    for (let round = 0; round < ROUNDS; round++) {
      await resetState()
      const team = await signedInMember('administrator')
      const other = await teammate(team, 'administrator')
      const [first, second] = await Promise.all([
        client
          .patch(route('team.members.role', { member: other.user.id }))
          .header('Authorization', team.bearer)
          .json({ role: 'developer' }),
        client
          .patch(route('team.members.role', { member: team.user.id }))
          .header('Authorization', other.bearer)
          .json({ role: 'developer' }),
      ])
      assertOneWinner(assert, [first, second], 200, round)
      assert.lengthOf(await activeAdministrators(team.merchant.id), 1)
    }
  })

  test('two administrators removing each other at the same instant leave exactly one active administrator', async ({
    client,
    assert,
  }) => {
    for (let round = 0; round < ROUNDS; round++) {
      await resetState()
      const team = await signedInMember('administrator')
      const other = await teammate(team, 'administrator')
      const [first, second] = await Promise.all([
        client
          .delete(route('team.members.destroy', { member: other.user.id }))
          .header('Authorization', team.bearer),
        client
          .delete(route('team.members.destroy', { member: team.user.id }))
          .header('Authorization', other.bearer),
      ])
      assertOneWinner(assert, [first, second], 204, round)
      assert.lengthOf(await activeAdministrators(team.merchant.id), 1)
    }
  })

  test('one administrator demoting the other while that one removes the first leaves one active administrator', async ({
    client,
    assert,
  }) => {
    for (let round = 0; round < ROUNDS; round++) {
      await resetState()
      const team = await signedInMember('administrator')
      const other = await teammate(team, 'administrator')
      const [demote, remove] = await Promise.all([
        client
          .patch(route('team.members.role', { member: other.user.id }))
          .header('Authorization', team.bearer)
          .json({ role: 'developer' }),
        client
          .delete(route('team.members.destroy', { member: team.user.id }))
          .header('Authorization', other.bearer),
      ])
      const succeeded = [demote.status() === 200, remove.status() === 204]
      assert.equal(succeeded.filter(Boolean).length, 1, `round ${round}: exactly one succeeds`)
      const loser = succeeded[0] ? remove : demote
      assert.equal(loser.body().error_code, LOSER_CODES[loser.status()], `round ${round}`)
      assert.lengthOf(await activeAdministrators(team.merchant.id), 1)
    }
  })

  test('both administrators demoting themselves at once leave one active administrator', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const other = await teammate(team, 'administrator')
    const responses = await Promise.all([
      client
        .patch(route('team.members.role', { member: team.user.id }))
        .header('Authorization', team.bearer)
        .json({ role: 'developer' }),
      client
        .patch(route('team.members.role', { member: other.user.id }))
        .header('Authorization', other.bearer)
        .json({ role: 'developer' }),
    ])
    assert.deepEqual(responses.map((response) => response.status()).sort(), [200, 409])
    assert.lengthOf(await activeAdministrators(team.merchant.id), 1)
  })

  /**
   * `caller` changes `targetId`'s role to `role`, then removes it, each time demoted
   * while its request waits for the team lock: both must be 403 FORBIDDEN.
   */
  async function assertRefusedOnceDemoted(
    client: ApiClient,
    assert: Assert,
    merchantId: number,
    caller: { user: User; bearer: string },
    targetId: number,
    role: 'administrator' | 'developer'
  ) {
    const demoteCaller = async (trx: TransactionClientContract) => {
      await trx.from('users').where('id', caller.user.id).update({ role: ROLES.developer })
    }
    const calls = [
      () =>
        client
          .patch(route('team.members.role', { member: targetId }))
          .header('Authorization', caller.bearer)
          .json({ role }),
      () =>
        client
          .delete(route('team.members.destroy', { member: targetId }))
          .header('Authorization', caller.bearer),
    ]
    for (const call of calls) {
      await User.query().where('id', caller.user.id).update({ role: ROLES.administrator })
      const response = await whileTeamLocked(merchantId, call, demoteCaller)
      assert.equal(response.status(), 403)
      assert.equal(response.body().error_code, 'FORBIDDEN')
    }
  }

  test('a caller demoted while waiting for the lock is 403 FORBIDDEN even when its target is now the last administrator', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const other = await teammate(team, 'administrator')
    await assertRefusedOnceDemoted(
      client,
      assert,
      team.merchant.id,
      other,
      team.user.id,
      'developer'
    )
    await team.user.refresh()
    assert.equal(team.user.role, ROLES.administrator)
    assert.isTrue(team.user.isActive)
  })

  test('a caller demoted while the request waits for the team lock is refused (403 FORBIDDEN) and the target is unchanged', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const other = await teammate(team, 'administrator')
    const developer = await teammate(team, 'developer')
    await assertRefusedOnceDemoted(
      client,
      assert,
      team.merchant.id,
      other,
      developer.user.id,
      'administrator'
    )
    await developer.user.refresh()
    assert.equal(developer.user.role, ROLES.developer)
    assert.equal(developer.user.merchantId, team.merchant.id)
    assert.isTrue(developer.user.isActive)
  })
})
