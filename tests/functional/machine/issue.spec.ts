import { test } from '@japa/runner'
import { liftLimit } from '#tests/helpers/limits'
import db from '@adonisjs/lucid/services/db'
import { resetState, setNow } from '#tests/helpers/database'
import { signedInMember, teammate } from '#tests/helpers/portal'
import { auditRows, issueThroughApi, uniqueLabel, auditOutcomes } from '#tests/helpers/machine'
import { route } from '#tests/helpers/routes'

const REASON = 'Integration server for orders'

test.group('POST /portal/merchant/machine-clients (issue)', (group) => {
  group.each.setup(() => resetState())

  test('an administrator issues an active client with a five-minute pending delivery', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    const response = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', admin.bearer)
      .json({ label: '  Orders server ', reason: REASON, current_password: admin.password })
    response.assertStatus(201)
    response.assertHeader('cache-control', 'no-store, private')
    const body = response.body()
    assert.isTrue(body.success)
    assert.match(body.message, /five minutes/)
    const ownership = await db.from('merchant_oauth_clients').firstOrFail()
    assert.deepEqual(body.data.client, {
      id: Number(ownership.id),
      oauth_client_id: Number(ownership.oauth_client_id),
      label: 'Orders server',
      is_active: true,
      created_at: '2026-03-01T10:00:00.000Z',
      last_used_at: null,
      revoked_at: null,
      rotation_deadline_at: null,
      replaces_merchant_oauth_client_id: null,
    })
    assert.notProperty(body.data.client, 'delivery')
    assert.match(body.data.delivery.id, /^[0-9a-f-]{36}$/)
    assert.equal(body.data.delivery.expires_at, '2026-03-01T10:05:00.000Z')
    assert.equal(Number(ownership.issued_by_user_id), admin.user.id)
    assert.equal(ownership.reason, REASON)
  })

  test('the secret is stored only as a keyed hash and the delivery only encrypted', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    const oauthClient = await db
      .from('oauth_clients')
      .where('id', issued.client.oauth_client_id)
      .first()
    assert.match(oauthClient.secret_hash, /^hmac-sha256\$[0-9a-f]{64}$/)
    assert.equal(oauthClient.kind, 'machine')
    const delivery = await db.from('credential_deliveries').where('id', issued.delivery.id).first()
    assert.notMatch(delivery.encrypted_secret, /^[A-Za-z0-9_-]{43}$/)
    const consumed = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    const secret = consumed.body().data.oauth_client_secret as string
    assert.notInclude(JSON.stringify(oauthClient), secret)
    assert.notInclude(JSON.stringify(delivery), secret)
  })

  test('mutation and audit record are written together', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    const [audit] = await auditRows('machine_client.issue')
    assert.equal(audit.outcome, 'success')
    assert.equal(Number(audit.actor_user_id), admin.user.id)
    assert.equal(Number(audit.merchant_id), admin.merchant.id)
    assert.equal(audit.target_id, String(issued.client.id))
    assert.equal(audit.reason, REASON)
  })

  test('a developer gets 403 FORBIDDEN before any validation', async ({ client, assert }) => {
    const developer = await signedInMember('developer')
    const response = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', developer.bearer)
      .json({ label: '', unexpected: true })
    response.assertStatus(403)
    assert.equal(response.body().error_code, 'FORBIDDEN')
    assert.lengthOf(await db.from('oauth_clients'), 0)
  })

  test('wrong current_password: 422 on current_password, no change, failure audited', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const response = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', admin.bearer)
      .json({ label: 'Orders', reason: REASON, current_password: 'Wrong-password-1!' })
    response.assertStatus(422)
    assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    assert.properties(response.body().errors, ['current_password'])
    assert.lengthOf(await db.from('oauth_clients'), 0)
    assert.lengthOf(await db.from('merchant_oauth_clients'), 0)
    assert.lengthOf(await db.from('credential_deliveries'), 0)
    const [audit] = await auditRows('machine_client.issue')
    assert.equal(audit.outcome, 'failure')
    assert.notInclude(JSON.stringify(audit), 'Wrong-password-1!')
  })

  test('strict body: unlisted fields, merchant selectors of its own merchant, secrets are rejected', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('machineClientMutation'))
    const admin = await signedInMember('administrator')
    for (const extra of [
      { environment: 'live' },
      { client_secret: 'mine-mine-mine-mine' },
      { merchant_id: admin.merchant.id },
      { is_active: false },
    ]) {
      const response = await client
        .post(route('merchant.machine_clients.store'))
        .header('Authorization', admin.bearer)
        .json({ label: 'Orders', reason: REASON, current_password: admin.password, ...extra })
      response.assertStatus(422)
      assert.properties(response.body().errors, Object.keys(extra))
    }
    assert.lengthOf(await db.from('oauth_clients'), 0)
  })

  test('label and reason rules; hostile values never cause a 500', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('machineClientMutation'))
    const admin = await signedInMember('administrator')
    const badLabels: unknown[] = [
      undefined,
      null,
      '',
      'ab',
      'x'.repeat(101),
      '-starts-with-dash',
      ' .hidden',
      'émoji 😀 label',
      'tab\tlabel',
      'semi;colon',
      42,
      true,
      ['Orders'],
      JSON.parse('{"__proto__": {"polluted": true}}'),
      'a'.repeat(100_000),
    ]
    for (const label of badLabels) {
      const response = await client
        .post(route('merchant.machine_clients.store'))
        .header('Authorization', admin.bearer)
        .json({ label, reason: REASON, current_password: admin.password })
      assert.oneOf(response.status(), [413, 422], `label ${JSON.stringify(label)?.slice(0, 40)}`)
      if (response.status() === 422) assert.properties(response.body().errors, ['label'])
    }
    for (const reason of [null, '', 'too short', 'r'.repeat(501), 12345678901, ['a reason here']]) {
      const response = await client
        .post(route('merchant.machine_clients.store'))
        .header('Authorization', admin.bearer)
        .json({ label: 'Orders', reason, current_password: admin.password })
      response.assertStatus(422)
      assert.properties(response.body().errors, ['reason'])
    }
    for (const currentPassword of [null, '', 123, 'p'.repeat(129)]) {
      const response = await client
        .post(route('merchant.machine_clients.store'))
        .header('Authorization', admin.bearer)
        .json({ label: 'Orders', reason: REASON, current_password: currentPassword })
      response.assertStatus(422)
      assert.properties(response.body().errors, ['current_password'])
    }
    const raw = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', admin.bearer)
      .header('Content-Type', 'application/json')
      .json('{"label": "Orders", "__proto__": {"x": 1}, "reason": ' as any)
    assert.isBelow(raw.status(), 500)
    const numeric = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', admin.bearer)
      .json({ label: '9'.repeat(30), reason: REASON, current_password: admin.password })
    numeric.assertStatus(201)
    assert.lengthOf(await db.from('oauth_clients'), 1)
  })

  test('labels are unique per merchant, case-insensitively, including revoked clients', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin, 'Orders server')
    const duplicate = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', admin.bearer)
      .json({ label: 'ORDERS SERVER', reason: REASON, current_password: admin.password })
    duplicate.assertStatus(422)
    assert.properties(duplicate.body().errors, ['label'])

    const revoked = await client
      .post(route('merchant.machine_clients.revoke', { client: issued.client.id }))
      .header('Authorization', admin.bearer)
      .json({ reason: REASON, current_password: admin.password })
    revoked.assertStatus(200)
    const afterRevoke = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', admin.bearer)
      .json({ label: 'Orders server', reason: REASON, current_password: admin.password })
    afterRevoke.assertStatus(422)

    const other = await signedInMember('administrator')
    await issueThroughApi(client, other, 'Orders server')
  })

  test('5 issues per minute per actor and merchant; the refusal is audited; other operations keep their own bucket', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    for (let i = 0; i < 5; i++) await issueThroughApi(client, admin)
    const refused = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', admin.bearer)
      .json({ label: uniqueLabel(), reason: REASON, current_password: admin.password })
    refused.assertStatus(429)
    assert.equal(refused.body().error_code, 'RATE_LIMITED')
    assert.isAbove(Number(refused.header('retry-after')), 0)
    const outcomes = await auditOutcomes('machine_client.issue')
    assert.lengthOf(
      outcomes.filter((outcome) => outcome === 'throttled'),
      1
    )
    assert.lengthOf(await db.from('oauth_clients'), 5)

    // The same administrator's revoke bucket is separate, and so is a colleague's issue bucket.
    const [first] = await db.from('merchant_oauth_clients').orderBy('id', 'asc')
    const revoke = await client
      .post(route('merchant.machine_clients.revoke', { client: first.id }))
      .header('Authorization', admin.bearer)
      .json({ reason: REASON, current_password: admin.password })
    revoke.assertStatus(200)
    const other = await teammate(admin, 'administrator')
    await issueThroughApi(client, other)
  })

  test('without a PAT: 401 UNAUTHENTICATED', async ({ client, assert }) => {
    const anonymous = await client.post(route('merchant.machine_clients.store')).json({})
    anonymous.assertStatus(401)
    assert.equal(anonymous.body().error_code, 'UNAUTHENTICATED')
  })
})
