import { test } from '@japa/runner'
import { clearLimits } from '#tests/helpers/limits'
import db from '@adonisjs/lucid/services/db'
import hash from '@adonisjs/core/services/hash'
import { resetState } from '#tests/helpers/database'
import { createMerchantWithUser, signedInMember, teammate } from '#tests/helpers/portal'
import { UserFactory, DEFAULT_TEST_PASSWORD } from '#database/factories/user_factory'
import AuditLog from '#models/audit_log'
import User, { ROLES } from '#models/user'
import { route } from '#tests/helpers/routes'
import { getProfile } from '#tests/helpers/requests'

async function tokensOf(user: User) {
  const row = await db
    .from('auth_access_tokens')
    .where('tokenable_id', user.id)
    .count('* as total')
    .first()
  return Number(row.total)
}

test.group('GET /portal/team/members', (group) => {
  group.each.setup(() => resetState())

  test('lists only this merchant administrator and developer accounts, inactive included, by ascending id', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const inactive = await teammate(team, 'administrator', {
      isActive: false,
    })
    await UserFactory.merge({ merchantId: team.merchant.id, role: 99 }).create() // internal role
    await UserFactory.merge({ merchantId: null, isActive: false }).create() // detached
    await createMerchantWithUser() // another merchant's member

    const response = await client
      .get(route('team.members.index'))
      .header('Authorization', team.bearer)
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store, private')
    const body = response.body()
    assert.equal(body.message, 'Success')
    assert.deepEqual(
      body.data.map((member: { id: number }) => member.id),
      [team.user.id, developer.user.id, inactive.user.id]
    )
    assert.deepEqual(body.meta, { current_page: 1, per_page: 25, total: 3, last_page: 1 })
    assert.deepEqual(body.data[1], {
      id: developer.user.id,
      first_name: developer.user.firstName,
      last_name: developer.user.lastName,
      email: developer.user.email,
      role: 'developer',
      is_active: true,
      joined_at: developer.user.createdAt.toUTC().toISO(),
    })
    assert.equal(body.data[2].is_active, false)
    assert.equal(body.data[2].role, 'administrator')
  })

  test('developers may list members too', async ({ client }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const response = await client
      .get(route('team.members.index'))
      .header('Authorization', developer.bearer)
    response.assertStatus(200)
    response.assertBodyContains({ meta: { total: 2 } })
  })

  test('paginates with standard meta, ignores extra query fields, out-of-range page is empty', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    await teammate(team, 'developer')

    const page2 = await client
      .get(route('team.members.index'))
      .qs({ page: 2, per_page: 1, role: 'developer', sort: 'desc' })
      .header('Authorization', team.bearer)
    page2.assertStatus(200)
    assert.deepEqual(page2.body().meta, { current_page: 2, per_page: 1, total: 3, last_page: 3 })
    assert.deepEqual(
      page2.body().data.map((member: { id: number }) => member.id),
      [developer.user.id]
    )

    const beyond = await client
      .get(route('team.members.index'))
      .qs({ page: 9 })
      .header('Authorization', team.bearer)
    beyond.assertStatus(200)
    assert.deepEqual(beyond.body().data, [])
    assert.equal(beyond.body().meta.total, 3)
  })

  test('invalid pagination is 422', async ({ client }) => {
    const team = await signedInMember('administrator')
    for (const qs of [
      { page: 0 },
      { per_page: 101 },
      { page: '' },
      { per_page: 'x' },
      { page: '1e3' },
    ]) {
      const response = await client
        .get(route('team.members.index'))
        .qs(qs)
        .header('Authorization', team.bearer)
      response.assertStatus(422)
      response.assertBodyContains({ error_code: 'VALIDATION_ERROR' })
    }
  })

  test('requires a PAT', async ({ client }) => {
    const response = await client.get(route('team.members.index'))
    response.assertStatus(401)
    response.assertBodyContains({ error_code: 'UNAUTHENTICATED' })
  })
})

test.group('PATCH /portal/team/members/{member}/role', (group) => {
  group.each.setup(() => resetState())

  test('a developer gets 403 FORBIDDEN before any validation', async ({ client, assert }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const response = await client
      .patch(route('team.members.role', { member: team.user.id }))
      .header('Authorization', developer.bearer)
      .json({ role: 42, junk: true })
    response.assertStatus(403)
    response.assertBodyContains({ error_code: 'FORBIDDEN' })
    await team.user.refresh()
    assert.equal(team.user.role, ROLES.administrator)
  })

  test('an actual change updates the role, revokes all the target tokens and is audited', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const response = await client
      .patch(route('team.members.role', { member: developer.user.id }))
      .header('Authorization', team.bearer)
      .json({ role: 'administrator' })
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store, private')
    assert.equal(response.body().message, 'Member role updated.')
    assert.deepInclude(response.body().data, {
      id: developer.user.id,
      role: 'administrator',
      is_active: true,
    })
    await developer.user.refresh()
    assert.equal(developer.user.role, ROLES.administrator)
    assert.equal(await tokensOf(developer.user), 0)
    const revoked = await getProfile(client, developer.bearer)
    revoked.assertStatus(401)

    const audit = await AuditLog.query().where('action', 'team.member.role_change')
    assert.lengthOf(audit, 1)
    assert.equal(audit[0].outcome, 'success')
    assert.equal(audit[0].actorUserId, team.user.id)
    assert.equal(audit[0].targetId, String(developer.user.id))
    assert.deepEqual(audit[0].metadata, { from: 'developer', to: 'administrator' })
  })

  test('the same role again answers 200 with no change, no revocation and no audit', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const response = await client
      .patch(route('team.members.role', { member: developer.user.id }))
      .header('Authorization', team.bearer)
      .json({ role: 'developer' })
    response.assertStatus(200)
    assert.equal(response.body().data.role, 'developer')
    assert.equal(await tokensOf(developer.user), 1)
    assert.lengthOf(await AuditLog.query().where('action', 'team.member.role_change'), 0)
    const still = await getProfile(client, developer.bearer)
    still.assertStatus(200)
  })

  test('role must be exactly administrator or developer (strict body)', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const bodies: unknown[] = [
      {},
      { role: 1 },
      { role: 10 },
      { role: 'Administrator' },
      { role: 'ADMINISTRATOR' },
      { role: null },
      { role: '' },
      { role: ['administrator'] },
      { role: { value: 'administrator' } },
      { role: 'owner' },
      { role: 'x'.repeat(5_000) },
      { role: 'administrator', is_active: false },
      { role: 'développeur' },
      [],
      'administrator',
    ]
    for (const body of bodies) {
      await clearLimits()
      const request = client
        .patch(route('team.members.role', { member: developer.user.id }))
        .header('Authorization', team.bearer)
      const response =
        typeof body === 'string' && body.startsWith('{')
          ? await request.unsafeJson(body)
          : await request.json(body as object)
      assert.equal(response.status(), 422, JSON.stringify(body)?.slice(0, 80))
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    }
    await clearLimits()
    const extra = await client
      .patch(route('team.members.role', { member: developer.user.id }))
      .header('Authorization', team.bearer)
      .json({ role: 'administrator', merchant_role: 1 })
    assert.property(extra.body().errors, 'merchant_role')
    await developer.user.refresh()
    assert.equal(developer.user.role, ROLES.developer)
  })

  test('a missing, detached, foreign or internal-role target is 404', async ({ client }) => {
    const team = await signedInMember('administrator')
    const detached = await UserFactory.merge({ merchantId: null, isActive: false }).create()
    const internal = await UserFactory.merge({ merchantId: team.merchant.id, role: 99 }).create()
    const { user: foreign } = await createMerchantWithUser({ role: 'developer' })
    for (const id of [
      detached.id,
      internal.id,
      foreign.id,
      999999,
      '99999999999999999999',
      '0',
      'abc',
      '01',
    ]) {
      const response = await client
        .patch(route('team.members.role', { member: id }))
        .header('Authorization', team.bearer)
        .json({ role: 'administrator' })
      response.assertStatus(404)
      response.assertBodyContains({ error_code: 'NOT_FOUND' })
    }
  })

  test('the sole active administrator cannot be demoted (inactive administrators do not count)', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    await teammate(team, 'administrator', { isActive: false })
    const response = await client
      .patch(route('team.members.role', { member: team.user.id }))
      .header('Authorization', team.bearer)
      .json({ role: 'developer' })
    response.assertStatus(409)
    response.assertBodyContains({ error_code: 'LAST_ADMINISTRATOR' })
    await team.user.refresh()
    assert.equal(team.user.role, ROLES.administrator)
    assert.equal(await tokensOf(team.user), 1)
  })

  test('an inactive member stays inactive when its role changes', async ({ client, assert }) => {
    const team = await signedInMember('administrator')
    const inactive = await teammate(team, 'administrator', {
      isActive: false,
    })
    const response = await client
      .patch(route('team.members.role', { member: inactive.user.id }))
      .header('Authorization', team.bearer)
      .json({ role: 'developer' })
    response.assertStatus(200)
    assert.deepInclude(response.body().data, { role: 'developer', is_active: false })
    await inactive.user.refresh()
    assert.isFalse(inactive.user.isActive)
    assert.equal(inactive.user.role, ROLES.developer)
  })

  test('an administrator may demote self when another active administrator remains; the own PAT is revoked', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const other = await teammate(team, 'administrator')
    const response = await client
      .patch(route('team.members.role', { member: team.user.id }))
      .header('Authorization', team.bearer)
      .json({ role: 'developer' })
    response.assertStatus(200)
    assert.equal(response.body().data.role, 'developer')
    const after = await getProfile(client, team.bearer)
    after.assertStatus(401)
    const otherStill = await getProfile(client, other.bearer)
    otherStill.assertStatus(200)
  })
})

test.group('DELETE /portal/team/members/{member}', (group) => {
  group.each.setup(() => resetState())

  test('a developer gets 403 FORBIDDEN', async ({ client }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const response = await client
      .delete(route('team.members.destroy', { member: developer.user.id }))
      .header('Authorization', developer.bearer)
      .json({ anything: 1 })
    response.assertStatus(403)
    response.assertBodyContains({ error_code: 'FORBIDDEN' })
  })

  test('removal detaches and deactivates the user, clears its remember token, revokes its tokens, keeps the user; repeat is 404', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer', {
      rememberMeToken: 'remember-me-value',
    })
    const passwordHash = developer.user.password

    const response = await client
      .delete(route('team.members.destroy', { member: developer.user.id }))
      .header('Authorization', team.bearer)
    response.assertStatus(204)
    assert.equal(response.text(), '')
    response.assertHeader('cache-control', 'no-store, private')

    const user = await User.findOrFail(developer.user.id)
    assert.isNull(user.merchantId)
    assert.isFalse(user.isActive)
    assert.isNull(user.rememberMeToken)
    assert.equal(user.password, passwordHash)
    assert.isTrue(await hash.verify(user.password, DEFAULT_TEST_PASSWORD))
    assert.equal(await tokensOf(user), 0)
    const revoked = await getProfile(client, developer.bearer)
    revoked.assertStatus(401)

    const audit = await AuditLog.query().where('action', 'team.member.remove')
    assert.lengthOf(audit, 1)
    assert.equal(audit[0].targetId, String(user.id))

    const again = await client
      .delete(route('team.members.destroy', { member: developer.user.id }))
      .header('Authorization', team.bearer)
    again.assertStatus(404)
    const list = await client.get(route('team.members.index')).header('Authorization', team.bearer)
    assert.deepEqual(
      list.body().data.map((member: { id: number }) => member.id),
      [team.user.id]
    )
  })

  test('takes no body: supplied fields are 422 and nothing changes', async ({ client, assert }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const response = await client
      .delete(route('team.members.destroy', { member: developer.user.id }))
      .header('Authorization', team.bearer)
      .json({ reason: 'gone' })
    response.assertStatus(422)
    assert.property(response.body().errors, 'reason')
    await developer.user.refresh()
    assert.equal(developer.user.merchantId, team.merchant.id)
  })

  test('a missing, detached, foreign or internal-role target is 404', async ({ client }) => {
    const team = await signedInMember('administrator')
    const detached = await UserFactory.merge({ merchantId: null, isActive: false }).create()
    const internal = await UserFactory.merge({ merchantId: team.merchant.id, role: 99 }).create()
    const { user: foreign } = await createMerchantWithUser()
    for (const id of [detached.id, internal.id, foreign.id, 424242]) {
      const response = await client
        .delete(route('team.members.destroy', { member: id }))
        .header('Authorization', team.bearer)
      response.assertStatus(404)
    }
  })

  test('the sole active administrator cannot be removed', async ({ client, assert }) => {
    const team = await signedInMember('administrator')
    await teammate(team, 'administrator', { isActive: false })
    const response = await client
      .delete(route('team.members.destroy', { member: team.user.id }))
      .header('Authorization', team.bearer)
    response.assertStatus(409)
    response.assertBodyContains({ error_code: 'LAST_ADMINISTRATOR' })
    await team.user.refresh()
    assert.equal(team.user.merchantId, team.merchant.id)
    assert.isTrue(team.user.isActive)
  })

  test('an administrator may remove self when another active administrator remains; the own PAT is revoked', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    await teammate(team, 'administrator')
    const response = await client
      .delete(route('team.members.destroy', { member: team.user.id }))
      .header('Authorization', team.bearer)
    response.assertStatus(204)
    await team.user.refresh()
    assert.isNull(team.user.merchantId)
    const after = await getProfile(client, team.bearer)
    after.assertStatus(401)
  })

  test('an inactive administrator can be removed while the caller is the only active one', async ({
    client,
  }) => {
    const team = await signedInMember('administrator')
    const inactive = await teammate(team, 'administrator', {
      isActive: false,
    })
    const response = await client
      .delete(route('team.members.destroy', { member: inactive.user.id }))
      .header('Authorization', team.bearer)
    response.assertStatus(204)
  })
})

test.group('Team mutation limits', (group) => {
  group.each.setup(() => resetState())

  test('5 role changes per minute per actor and merchant; the sixth is 429 with Retry-After and audited; removal has its own bucket', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    for (let attempt = 0; attempt < 5; attempt++) {
      const response = await client
        .patch(route('team.members.role', { member: developer.user.id }))
        .header('Authorization', team.bearer)
        .json({ role: attempt === 0 ? 'bogus' : 'developer' })
      assert.oneOf(response.status(), [200, 422])
    }
    const throttled = await client
      .patch(route('team.members.role', { member: developer.user.id }))
      .header('Authorization', team.bearer)
      .json({ role: 'developer' })
    throttled.assertStatus(429)
    throttled.assertBodyContains({ error_code: 'RATE_LIMITED' })
    assert.match(throttled.header('retry-after') ?? '', /^[1-9][0-9]*$/)
    const audit = await AuditLog.query()
      .where('action', 'team.member.role_change')
      .where('outcome', 'throttled')
    assert.lengthOf(audit, 1)

    const removal = await client
      .delete(route('team.members.destroy', { member: developer.user.id }))
      .header('Authorization', team.bearer)
    removal.assertStatus(204)
  })
})
