import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { advanceClock, resetState, setNow } from '#tests/helpers/database'
import { signedInMember, teammate } from '#tests/helpers/portal'
import { appUrl } from '#config/app'
import { SYSTEM_ACTOR, type UserActor } from '#auth/actor'
import { consumeDelivery, findConsumableDelivery } from '#services/machine_clients/consume_delivery'
import {
  auditOutcomes,
  auditRows,
  issueThroughApi,
  machineToken,
  whoAmI,
} from '#tests/helpers/machine'
import { route } from '#tests/helpers/routes'

test.group('POST /portal/merchant/credential-deliveries/{delivery}/consume', (group) => {
  group.each.setup(() => resetState())

  test('the issuing administrator gets exactly the four fields once, with no-cache headers', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    const response = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store, private, max-age=0')
    response.assertHeader('pragma', 'no-cache')
    response.assertHeader('x-content-type-options', 'nosniff')
    const data = response.body().data
    assert.sameMembers(Object.keys(data), [
      'oauth_client_id',
      'oauth_client_secret',
      'grant_type',
      'token_url',
    ])
    assert.equal(data.oauth_client_id, issued.client.oauth_client_id)
    assert.equal(data.grant_type, 'client_credentials')
    assert.equal(data.token_url, `${appUrl}${route('oauth.token')}`)
    assert.match(data.oauth_client_secret, /^[A-Za-z0-9_-]{43}$/)
    assert.lengthOf(await db.from('credential_deliveries'), 0)
    assert.deepEqual(await auditOutcomes('credential_delivery.consume'), ['success'])

    // The secret works, and it cannot be fetched again.
    const token = await machineToken(client, {
      clientId: String(data.oauth_client_id),
      secret: data.oauth_client_secret,
    })
    const whoami = await whoAmI(client, token)
    whoami.assertStatus(200)
    const again = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    again.assertStatus(410)
    assert.equal(again.body().error_code, 'GONE')
    again.assertHeader('cache-control', 'no-store, private, max-age=0')
    assert.notInclude(JSON.stringify(again.body()), data.oauth_client_secret)
  })

  test("refusals carry the credential headers too: a developer's 403, a missing PAT's 401", async ({
    client,
  }) => {
    const admin = await signedInMember('administrator')
    const developer = await teammate(admin, 'developer')
    const issued = await issueThroughApi(client, admin)
    const path = route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id })
    const forbidden = await client
      .post(path)
      .header('Authorization', developer.bearer)
      .json({ current_password: developer.password })
    const anonymous = await client.post(path).json({})
    for (const [response, status] of [
      [forbidden, 403],
      [anonymous, 401],
    ] as const) {
      response.assertStatus(status)
      response.assertHeader('cache-control', 'no-store, private, max-age=0')
      response.assertHeader('pragma', 'no-cache')
      response.assertHeader('x-content-type-options', 'nosniff')
    }
    // And on the other credential routes, no-store, private on a refusal.
    const issue = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', developer.bearer)
      .json({})
    issue.assertStatus(403)
    issue.assertHeader('cache-control', 'no-store, private')
  })

  test('wrong password: 422 on current_password, delivery kept, failure audited', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    const wrong = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: 'Definitely-Wrong-1' })
    wrong.assertStatus(422)
    assert.properties(wrong.body().errors, ['current_password'])
    assert.notProperty(wrong.body(), 'data')
    assert.lengthOf(await db.from('credential_deliveries'), 1)
    const [audit] = await auditRows('credential_delivery.consume')
    assert.equal(audit.outcome, 'failure')
    assert.equal(audit.target_id, issued.delivery.id)
    assert.notInclude(JSON.stringify(audit), 'Definitely-Wrong-1')

    const right = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    right.assertStatus(200)
  })

  test('strict body: extra or missing fields are 422 and the delivery is kept', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    for (const body of [
      {},
      { current_password: admin.password, oauth_client_id: 1 },
      { current_password: null },
      { current_password: ['x'] },
    ]) {
      const response = await client
        .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
        .header('Authorization', admin.bearer)
        .json(body)
      response.assertStatus(422)
    }
    assert.lengthOf(await db.from('credential_deliveries'), 1)
  })

  test('another administrator of the merchant, or of another merchant: 404; a developer: 403', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    const otherAdmin = await teammate(admin, 'administrator')
    const foreignAdmin = await signedInMember('administrator')
    const developer = await teammate(admin, 'developer')
    for (const member of [otherAdmin, foreignAdmin]) {
      const response = await client
        .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
        .header('Authorization', member.bearer)
        .json({ current_password: member.password })
      response.assertStatus(404)
      assert.equal(response.body().error_code, 'NOT_FOUND')
    }
    const forbidden = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
      .header('Authorization', developer.bearer)
      .json({ current_password: developer.password })
    forbidden.assertStatus(403)
    assert.equal(forbidden.body().error_code, 'FORBIDDEN')
    assert.lengthOf(await db.from('credential_deliveries'), 1)
  })

  test('expired: removed (committed, system-audited) and 410 GONE', async ({ client, assert }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    advanceClock(5 * 60 * 1000)
    const response = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    response.assertStatus(410)
    assert.equal(response.body().error_code, 'GONE')
    assert.lengthOf(await db.from('credential_deliveries'), 0)
    const [audit] = await auditRows('credential_delivery.expired_removed')
    assert.equal(audit.actor_type, 'system')
    assert.equal(audit.target_id, issued.delivery.id)
  })

  test('expiring while the password is checked: still removed (committed, system-audited) before the 410', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    advanceClock(5 * 60 * 1000 - 1)
    // The body is validated after the first expiry check: let the delivery expire then.
    const actor: UserActor = {
      ...SYSTEM_ACTOR,
      kind: 'user',
      userId: admin.user.id,
      merchantId: admin.merchant.id,
      role: 'administrator',
    }
    const delivery = await findConsumableDelivery(actor, issued.delivery.id)
    advanceClock(1)
    const consumed = consumeDelivery(actor, delivery, { current_password: admin.password })
    const error = await consumed.then(
      () => null,
      (caught) => caught
    )
    assert.equal(error.status, 410)
    assert.equal(error.errorCode, 'GONE')
    assert.lengthOf(await db.from('credential_deliveries'), 0)
    const [audit] = await auditRows('credential_delivery.expired_removed')
    assert.equal(audit.actor_type, 'system')
    assert.equal(audit.target_id, issued.delivery.id)
  })

  test('just before expiry the delivery is still consumable', async ({ client }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    advanceClock(5 * 60 * 1000 - 1)
    const response = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    response.assertStatus(200)
  })

  test('invalidated by revocation, or by the client becoming unusable: 410 GONE', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const revoked = await issueThroughApi(client, admin)
    await client
      .post(route('merchant.machine_clients.revoke', { client: revoked.client.id }))
      .header('Authorization', admin.bearer)
      .json({ reason: 'Issued by mistake', current_password: admin.password })
    const first = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: revoked.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    first.assertStatus(410)

    const deactivated = await issueThroughApi(client, admin)
    await db
      .from('merchant_oauth_clients')
      .where('id', deactivated.client.id)
      .update({ is_active: false })
    const second = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: deactivated.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    second.assertStatus(410)
    assert.equal(second.body().error_code, 'GONE')
    assert.notProperty(second.body(), 'data')
  })

  test('unknown delivery: 410; malformed id: 404', async ({ client }) => {
    const admin = await signedInMember('administrator')
    const unknown = await client
      .post(
        route('merchant.credential_deliveries.consume', {
          delivery: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
        })
      )
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    unknown.assertStatus(410)
    for (const id of ['not-a-uuid', '7c9e6679742540de944be07fc1f90ae7', '1']) {
      const response = await client
        .post(route('merchant.credential_deliveries.consume', { delivery: id }))
        .header('Authorization', admin.bearer)
        .json({ current_password: admin.password })
      response.assertStatus(404)
    }
  })

  test('10 attempts per minute per actor and delivery; the refusal is audited', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    for (let i = 0; i < 10; i++) {
      const response = await client
        .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
        .header('Authorization', admin.bearer)
        .json({ current_password: 'Wrong-Password-1' })
      response.assertStatus(422)
    }
    const refused = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    refused.assertStatus(429)
    assert.isAbove(Number(refused.header('retry-after')), 0)
    const outcomes = await auditOutcomes('credential_delivery.consume')
    assert.equal(outcomes.filter((outcome) => outcome === 'throttled').length, 1)
    assert.lengthOf(await db.from('credential_deliveries'), 1)

    // Another delivery of the same administrator has its own bucket.
    const other = await issueThroughApi(client, admin)
    const response = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: other.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    response.assertStatus(200)
  })
})
