import { test } from '@japa/runner'
import { liftLimit } from '#tests/helpers/limits'
import db from '@adonisjs/lucid/services/db'
import { advanceClock, resetState, setNow } from '#tests/helpers/database'
import { signedInMember, teammate } from '#tests/helpers/portal'
import {
  auditRows,
  consumeThroughApi,
  issueThroughApi,
  mappedClientOfKind,
  firstRow,
} from '#tests/helpers/machine'
import { route } from '#tests/helpers/routes'

const REASON = 'Integration server for orders'

test.group('GET /portal/merchant/machine-clients', (group) => {
  group.each.setup(() => resetState())

  test('both roles list the merchant clients, newest ownership first, with pagination', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('machineClientMutation'))
    const admin = await signedInMember('administrator')
    const developer = await teammate(admin, 'developer')
    const ids: number[] = []
    for (let i = 0; i < 3; i++) {
      const issued = await issueThroughApi(client, admin)
      ids.push(issued.client.id)
    }
    const foreign = await signedInMember('administrator')
    await issueThroughApi(client, foreign)

    for (const member of [admin, developer]) {
      const response = await client
        .get(route('merchant.machine_clients.index'))
        .header('Authorization', member.bearer)
        .qs({ per_page: 2 })
      response.assertStatus(200)
      response.assertHeader('cache-control', 'no-store, private')
      assert.deepEqual(
        response.body().data.map((item: { id: number }) => item.id),
        [ids[2], ids[1]]
      )
      assert.deepEqual(response.body().meta, {
        current_page: 1,
        per_page: 2,
        total: 3,
        last_page: 2,
      })
    }
    const second = await client
      .get(route('merchant.machine_clients.index'))
      .header('Authorization', developer.bearer)
      .qs({ page: 2, per_page: 2, unrelated: 'ignored' })
    assert.deepEqual(
      second.body().data.map((item: { id: number }) => item.id),
      [ids[0]]
    )
    const beyond = await client
      .get(route('merchant.machine_clients.index'))
      .header('Authorization', developer.bearer)
      .qs({ page: 9 })
    beyond.assertStatus(200)
    assert.deepEqual(beyond.body().data, [])
    assert.equal(beyond.body().meta.total, 3)
  })

  test('invalid pagination is 422', async ({ client }) => {
    const admin = await signedInMember('administrator')
    for (const qs of [{ page: 0 }, { per_page: 101 }, { page: '' }, { per_page: 'x' }]) {
      const response = await client
        .get(route('merchant.machine_clients.index'))
        .header('Authorization', admin.bearer)
        .qs(qs)
      response.assertStatus(422)
    }
  })

  test('item fields are exactly the metadata plus delivery; never a secret or hash', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    await issueThroughApi(client, admin)
    const response = await client
      .get(route('merchant.machine_clients.index'))
      .header('Authorization', admin.bearer)
    const [item] = response.body().data
    assert.sameMembers(Object.keys(item), [
      'id',
      'oauth_client_id',
      'label',
      'is_active',
      'created_at',
      'last_used_at',
      'revoked_at',
      'rotation_deadline_at',
      'replaces_merchant_oauth_client_id',
      'delivery',
    ])
    assert.notMatch(JSON.stringify(response.body()), /secret|hash|hmac/i)
  })

  test('delivery is shown only to the issuing administrator while client and delivery are usable', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    const developer = await teammate(admin, 'developer')
    const otherAdmin = await teammate(admin, 'administrator')
    const issued = await issueThroughApi(client, admin)
    const deliveryOf = async (member: typeof admin) => {
      const response = await client
        .get(route('merchant.machine_clients.index'))
        .header('Authorization', member.bearer)
      response.assertStatus(200)
      return response.body().data[0].delivery
    }
    assert.deepEqual(await deliveryOf(admin), {
      id: issued.delivery.id,
      expires_at: '2026-03-01T10:05:00.000Z',
    })
    assert.isNull(await deliveryOf(developer))
    assert.isNull(await deliveryOf(otherAdmin))

    await consumeThroughApi(client, admin, issued.delivery.id)
    assert.isNull(await deliveryOf(admin))
  })

  test('an issuing administrator demoted to developer no longer sees the delivery', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    await issueThroughApi(client, admin)
    await db.from('users').where('id', admin.user.id).update({ role: 10 })
    const response = await client
      .get(route('merchant.machine_clients.index'))
      .header('Authorization', admin.bearer)
    assert.isNull(response.body().data[0].delivery)
  })

  test('reading removes expired deliveries, audited as a system action; clients stay active', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    const developer = await teammate(admin, 'developer')
    const issued = await issueThroughApi(client, admin)
    advanceClock(5 * 60 * 1000)
    const response = await client
      .get(route('merchant.machine_clients.index'))
      .header('Authorization', developer.bearer)
    response.assertStatus(200)
    assert.isNull(response.body().data[0].delivery)
    assert.isTrue(response.body().data[0].is_active)
    assert.lengthOf(await db.from('credential_deliveries'), 0)
    const [audit] = await auditRows('credential_delivery.expired_removed')
    assert.equal(audit.actor_type, 'system')
    assert.isNull(audit.actor_user_id)
    assert.equal(audit.target_id, issued.delivery.id)
    assert.equal(Number(audit.merchant_id), admin.merchant.id)
    const oauthClientRow = await firstRow('oauth_clients')
    assert.isNull(oauthClientRow.revoked_at)
  })

  test('a delivery one millisecond before expiry is still shown and kept', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    await issueThroughApi(client, admin)
    advanceClock(5 * 60 * 1000 - 1)
    const response = await client
      .get(route('merchant.machine_clients.index'))
      .header('Authorization', admin.bearer)
    assert.isNotNull(response.body().data[0].delivery)
    assert.lengthOf(await db.from('credential_deliveries'), 1)
  })

  test('is_active accounts for revocation, ownership, eligibility and the rotation deadline', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    const rotated = await issueThroughApi(client, admin)
    const rotation = await client
      .post(route('merchant.machine_clients.rotate', { client: rotated.client.id }))
      .header('Authorization', admin.bearer)
      .json({
        label: 'Replacement',
        reason: REASON,
        current_password: admin.password,
        overlap_minutes: 10,
      })
    rotation.assertStatus(201)
    const revoked = await issueThroughApi(client, admin)
    await client
      .post(route('merchant.machine_clients.revoke', { client: revoked.client.id }))
      .header('Authorization', admin.bearer)
      .json({ reason: REASON, current_password: admin.password })
    const deactivated = await issueThroughApi(client, admin)
    await db
      .from('merchant_oauth_clients')
      .where('id', deactivated.client.id)
      .update({ is_active: false })
    const framework = await mappedClientOfKind(admin.merchant.id, 'framework')

    const activity = async () => {
      const response = await client
        .get(route('merchant.machine_clients.index'))
        .header('Authorization', admin.bearer)
      return Object.fromEntries(
        response
          .body()
          .data.map((item: { id: number; is_active: boolean }) => [item.id, item.is_active])
      ) as Record<number, boolean>
    }
    let state = await activity()
    assert.isTrue(state[rotated.client.id])
    assert.isTrue(state[rotation.body().data.client.id])
    assert.isFalse(state[revoked.client.id])
    assert.isFalse(state[deactivated.client.id])
    assert.isFalse(state[framework.id])

    advanceClock(10 * 60 * 1000)
    state = await activity()
    assert.isFalse(state[rotated.client.id])
    assert.isTrue(state[rotation.body().data.client.id])
  })
})
