import { test } from '@japa/runner'
import { addMember } from '#tests/helpers/portal'
import { resetState } from '#tests/helpers/database'
import { teamWithAdministrator, whileTeamLocked } from '#tests/helpers/team'
import User, { ROLES } from '#models/user'

const ROUNDS = 5

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
      const team = await teamWithAdministrator()
      const other = await addMember(team.merchant, team.client, 'administrator')
      const [first, second] = await Promise.all([
        client
          .patch(`/api/v1/portal/team/members/${other.user.id}/role`)
          .header('Authorization', team.bearer)
          .json({ role: 'developer' }),
        client
          .patch(`/api/v1/portal/team/members/${team.admin.id}/role`)
          .header('Authorization', other.bearer)
          .json({ role: 'developer' }),
      ])
      const statuses = [first.status(), second.status()].sort()
      assert.deepEqual(statuses, [200, 409], `round ${round}`)
      const loser = first.status() === 409 ? first : second
      assert.equal(loser.body().error_code, 'LAST_ADMINISTRATOR')
      assert.lengthOf(await activeAdministrators(team.merchant.id), 1)
    }
  })

  test('two administrators removing each other at the same instant leave exactly one active administrator', async ({
    client,
    assert,
  }) => {
    for (let round = 0; round < ROUNDS; round++) {
      await resetState()
      const team = await teamWithAdministrator()
      const other = await addMember(team.merchant, team.client, 'administrator')
      const [first, second] = await Promise.all([
        client
          .delete(`/api/v1/portal/team/members/${other.user.id}`)
          .header('Authorization', team.bearer),
        client
          .delete(`/api/v1/portal/team/members/${team.admin.id}`)
          .header('Authorization', other.bearer),
      ])
      assert.deepEqual([first.status(), second.status()].sort(), [204, 409], `round ${round}`)
      const loser = first.status() === 409 ? first : second
      assert.equal(loser.body().error_code, 'LAST_ADMINISTRATOR')
      assert.lengthOf(await activeAdministrators(team.merchant.id), 1)
    }
  })

  test('one administrator demoting the other while that one removes the first leaves one active administrator', async ({
    client,
    assert,
  }) => {
    for (let round = 0; round < ROUNDS; round++) {
      await resetState()
      const team = await teamWithAdministrator()
      const other = await addMember(team.merchant, team.client, 'administrator')
      const [demote, remove] = await Promise.all([
        client
          .patch(`/api/v1/portal/team/members/${other.user.id}/role`)
          .header('Authorization', team.bearer)
          .json({ role: 'developer' }),
        client
          .delete(`/api/v1/portal/team/members/${team.admin.id}`)
          .header('Authorization', other.bearer),
      ])
      const outcomes = [demote.status(), remove.status()]
      assert.includeMembers([[200, 409].join(), [409, 204].join()], [outcomes.join()])
      assert.lengthOf(await activeAdministrators(team.merchant.id), 1)
    }
  })

  test('both administrators demoting themselves at once leave one active administrator', async ({
    client,
    assert,
  }) => {
    const team = await teamWithAdministrator()
    const other = await addMember(team.merchant, team.client, 'administrator')
    const responses = await Promise.all([
      client
        .patch(`/api/v1/portal/team/members/${team.admin.id}/role`)
        .header('Authorization', team.bearer)
        .json({ role: 'developer' }),
      client
        .patch(`/api/v1/portal/team/members/${other.user.id}/role`)
        .header('Authorization', other.bearer)
        .json({ role: 'developer' }),
    ])
    assert.deepEqual(responses.map((response) => response.status()).sort(), [200, 409])
    assert.lengthOf(await activeAdministrators(team.merchant.id), 1)
  })

  test('a caller demoted while the request waits for the team lock is refused (403 FORBIDDEN) and the target is unchanged', async ({
    client,
    assert,
  }) => {
    const team = await teamWithAdministrator()
    const other = await addMember(team.merchant, team.client, 'administrator')
    const developer = await addMember(team.merchant, team.client, 'developer')
    const demoteOther = async (trx: any) => {
      await trx.from('users').where('id', other.user.id).update({ role: ROLES.developer })
    }
    const calls = [
      () =>
        client
          .patch(`/api/v1/portal/team/members/${developer.user.id}/role`)
          .header('Authorization', other.bearer)
          .json({ role: 'administrator' }),
      () =>
        client
          .delete(`/api/v1/portal/team/members/${developer.user.id}`)
          .header('Authorization', other.bearer),
    ]
    for (const call of calls) {
      await User.query().where('id', other.user.id).update({ role: ROLES.administrator })
      const response: any = await whileTeamLocked(team.merchant.id, call, demoteOther)
      assert.equal(response.status(), 403)
      assert.equal(response.body().error_code, 'FORBIDDEN')
    }
    await developer.user.refresh()
    assert.equal(developer.user.role, ROLES.developer)
    assert.equal(developer.user.merchantId, team.merchant.id)
    assert.isTrue(developer.user.isActive)
  })
})
