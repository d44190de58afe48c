import { test } from '@japa/runner'
import { liftLimit } from '#tests/helpers/limits'
import db from '@adonisjs/lucid/services/db'
import { advanceClock, resetState, setNow } from '#tests/helpers/database'
import { signedInMember, teammate } from '#tests/helpers/portal'
import {
  auditRows,
  consumeThroughApi,
  issueThroughApi,
  machineClientWithSecret,
  machineToken,
  mappedClientOfKind,
  tokenRequest,
  firstRow,
  auditOutcomes,
  whoAmI,
} from '#tests/helpers/machine'
import { route } from '#tests/helpers/routes'
import { expectStatus } from '#tests/helpers/requests'

const REASON = 'Routine credential rotation'

function rotateBody(password: string, overrides: Record<string, unknown> = {}) {
  return {
    label: 'Replacement server',
    reason: REASON,
    current_password: password,
    overlap_minutes: 60,
    ...overrides,
  }
}

test.group('POST /portal/merchant/machine-clients/{client}/rotate', (group) => {
  group.each.setup(() => resetState())

  test('creates an active replacement with a new delivery; the prior client gets a deadline', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    const prior = await issueThroughApi(client, admin)
    const response = await client
      .post(route('merchant.machine_clients.rotate', { client: prior.client.id }))
      .header('Authorization', admin.bearer)
      .json(rotateBody(admin.password, { overlap_minutes: 90 }))
    response.assertStatus(201)
    response.assertHeader('cache-control', 'no-store, private')
    const { client: replacement, delivery } = response.body().data
    assert.notEqual(replacement.id, prior.client.id)
    assert.notEqual(replacement.oauth_client_id, prior.client.oauth_client_id)
    assert.equal(replacement.label, 'Replacement server')
    assert.isTrue(replacement.is_active)
    assert.isNull(replacement.rotation_deadline_at)
    assert.equal(replacement.replaces_merchant_oauth_client_id, prior.client.id)
    assert.notProperty(replacement, 'delivery')
    assert.equal(delivery.expires_at, '2026-03-01T10:05:00.000Z')
    assert.notEqual(delivery.id, prior.delivery.id)

    const stored = await db.from('merchant_oauth_clients').where('id', prior.client.id).first()
    assert.equal(stored.rotation_deadline_at.toISOString(), '2026-03-01T11:30:00.000Z')
    const [audit] = await auditRows('machine_client.rotate')
    assert.equal(audit.outcome, 'success')
    assert.equal(audit.target_id, String(prior.client.id))
    assert.equal(audit.metadata.replacement_id, replacement.id)
  })

  test('during the overlap both clients work; after the deadline the prior is rejected on use but still gets tokens', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const prior = await machineClientWithSecret(client)
    const rotation = await client
      .post(route('merchant.machine_clients.rotate', { client: prior.ownershipId }))
      .header('Authorization', prior.admin.bearer)
      .json(rotateBody(prior.admin.password, { overlap_minutes: 5 }))
    rotation.assertStatus(201)
    const replacementSecret = await consumeThroughApi(
      client,
      prior.admin,
      rotation.body().data.delivery.id
    )
    const priorToken = await machineToken(client, prior)
    await expectStatus(whoAmI(client, priorToken), 200)

    advanceClock(5 * 60 * 1000)
    const rejected = await whoAmI(client, priorToken)
    rejected.assertStatus(403)
    assert.equal(rejected.body().error_code, 'CLIENT_MERCHANT_NOT_AUTHORIZED')
    const lateToken = await machineToken(client, prior)
    await expectStatus(whoAmI(client, lateToken), 403)

    const replacementToken = await machineToken(client, {
      clientId: String(replacementSecret.oauth_client_id),
      secret: replacementSecret.oauth_client_secret,
    })
    await expectStatus(whoAmI(client, replacementToken), 200)
  })

  test('repeat rotation: 409 CONFLICT and no second replacement', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const prior = await issueThroughApi(client, admin)
    await expectStatus(
      client
        .post(route('merchant.machine_clients.rotate', { client: prior.client.id }))
        .header('Authorization', admin.bearer)
        .json(rotateBody(admin.password)),
      201
    )
    const repeat = await client
      .post(route('merchant.machine_clients.rotate', { client: prior.client.id }))
      .header('Authorization', admin.bearer)
      .json(rotateBody(admin.password, { label: 'Another replacement' }))
    repeat.assertStatus(409)
    assert.equal(repeat.body().error_code, 'CONFLICT')
    assert.lengthOf(await db.from('merchant_oauth_clients'), 2)
    assert.lengthOf(await db.from('credential_deliveries'), 2)
  })

  test('rotating a revoked or past-deadline client: 409 CONFLICT', async ({ client, assert }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    const revoked = await issueThroughApi(client, admin)
    await client
      .post(route('merchant.machine_clients.revoke', { client: revoked.client.id }))
      .header('Authorization', admin.bearer)
      .json({ reason: REASON, current_password: admin.password })
    const response = await client
      .post(route('merchant.machine_clients.rotate', { client: revoked.client.id }))
      .header('Authorization', admin.bearer)
      .json(rotateBody(admin.password))
    response.assertStatus(409)
    assert.equal(response.body().error_code, 'CONFLICT')

    const inactive = await issueThroughApi(client, admin)
    await db
      .from('merchant_oauth_clients')
      .where('id', inactive.client.id)
      .update({ is_active: false })
    await expectStatus(
      client
        .post(route('merchant.machine_clients.rotate', { client: inactive.client.id }))
        .header('Authorization', admin.bearer)
        .json(rotateBody(admin.password, { label: 'Other label' })),
      409
    )
    assert.lengthOf(await db.from('merchant_oauth_clients'), 2)
  })

  test('framework, personal-access, password and ecosystem client mappings cannot be rotated (404)', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('machineClientMutation'))
    const admin = await signedInMember('administrator')
    for (const kind of ['framework', 'personal_access', 'password', 'ecosystem'] as const) {
      const mapping = await mappedClientOfKind(admin.merchant.id, kind)
      for (const operation of ['rotate', 'revoke'] as const) {
        const response = await client
          .post(route(`merchant.machine_clients.${operation}`, { client: mapping.id }))
          .header('Authorization', admin.bearer)
          .json(rotateBody(admin.password))
        response.assertStatus(404)
        assert.equal(response.body().error_code, 'NOT_FOUND')
      }
    }
    assert.lengthOf(await db.from('merchant_oauth_clients'), 4)
    assert.lengthOf(await db.from('oauth_clients').whereNotNull('revoked_at'), 0)
  })

  test('unknown, foreign and malformed client ids: 404', async ({ client, cleanup }) => {
    cleanup(liftLimit('machineClientMutation'))
    const admin = await signedInMember('administrator')
    const foreign = await signedInMember('administrator')
    const theirs = await issueThroughApi(client, foreign)
    for (const id of [
      String(theirs.client.id),
      '999999',
      '0',
      '01',
      'abc',
      '-1',
      '1.5',
      '99999999999999999999',
      '9223372036854775808',
    ]) {
      for (const operation of ['rotate', 'revoke'] as const) {
        const response = await client
          .post(route(`merchant.machine_clients.${operation}`, { client: id }))
          .header('Authorization', admin.bearer)
          .json(rotateBody(admin.password))
        response.assertStatus(404)
      }
    }
  })

  test('overlap_minutes is an integer 5-10,080', async ({ client, assert, cleanup }) => {
    cleanup(liftLimit('machineClientMutation'))
    const admin = await signedInMember('administrator')
    const prior = await issueThroughApi(client, admin)
    for (const overlap of [4, 10_081, 5.5, '60', null, undefined, -5, 1e300, true, [60]]) {
      const response = await client
        .post(route('merchant.machine_clients.rotate', { client: prior.client.id }))
        .header('Authorization', admin.bearer)
        .json(rotateBody(admin.password, { overlap_minutes: overlap }))
      response.assertStatus(422)
      assert.properties(response.body().errors, ['overlap_minutes'])
    }
    assert.lengthOf(await db.from('merchant_oauth_clients'), 1)
    const atMaximum = await client
      .post(route('merchant.machine_clients.rotate', { client: prior.client.id }))
      .header('Authorization', admin.bearer)
      .json(rotateBody(admin.password, { overlap_minutes: 10_080 }))
    atMaximum.assertStatus(201)
    const second = await issueThroughApi(client, admin)
    await expectStatus(
      client
        .post(route('merchant.machine_clients.rotate', { client: second.client.id }))
        .header('Authorization', admin.bearer)
        .json(rotateBody(admin.password, { overlap_minutes: 5, label: 'Minimum overlap' })),
      201
    )
  })

  test('strict body, replacement label unique, wrong password 422 with no change, developer 403', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('machineClientMutation'))
    const admin = await signedInMember('administrator')
    const prior = await issueThroughApi(client, admin, 'Orders server')
    const path = route('merchant.machine_clients.rotate', { client: prior.client.id })
    const extra = await client
      .post(path)
      .header('Authorization', admin.bearer)
      .json(rotateBody(admin.password, { client_id: 1 }))
    extra.assertStatus(422)
    assert.properties(extra.body().errors, ['client_id'])
    const taken = await client
      .post(path)
      .header('Authorization', admin.bearer)
      .json(rotateBody(admin.password, { label: 'orders SERVER' }))
    taken.assertStatus(422)
    assert.properties(taken.body().errors, ['label'])
    const wrong = await client
      .post(path)
      .header('Authorization', admin.bearer)
      .json(rotateBody('Not-the-password-1'))
    wrong.assertStatus(422)
    assert.properties(wrong.body().errors, ['current_password'])
    const developer = await teammate(admin, 'developer')
    const forbidden = await client.post(path).header('Authorization', developer.bearer).json({})
    forbidden.assertStatus(403)
    assert.equal(forbidden.body().error_code, 'FORBIDDEN')

    assert.lengthOf(await db.from('merchant_oauth_clients'), 1)
    const ownershipRow = await firstRow('merchant_oauth_clients')
    assert.isNull(ownershipRow.rotation_deadline_at)
    assert.deepEqual(await auditOutcomes('machine_client.rotate'), ['failure'])
  })
})

test.group('POST /portal/merchant/machine-clients/{client}/revoke', (group) => {
  group.each.setup(() => resetState())

  test('revokes client and tokens, deactivates ownership, clears the deadline, deletes the pending delivery', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00Z')
    const machine = await machineClientWithSecret(client)
    const token = await machineToken(client, machine)
    const rotation = await client
      .post(route('merchant.machine_clients.rotate', { client: machine.ownershipId }))
      .header('Authorization', machine.admin.bearer)
      .json(rotateBody(machine.admin.password))
    rotation.assertStatus(201)
    // A pending delivery on the client being revoked: issue one more and revoke it too.
    const pending = await issueThroughApi(client, machine.admin)

    const response = await client
      .post(route('merchant.machine_clients.revoke', { client: machine.ownershipId }))
      .header('Authorization', machine.admin.bearer)
      .json({ reason: 'Server decommissioned', current_password: machine.admin.password })
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store, private')
    assert.match(response.body().message, /revoked/)
    assert.deepInclude(response.body().data, {
      id: machine.ownershipId,
      oauth_client_id: Number(machine.clientId),
      is_active: false,
      revoked_at: '2026-03-01T10:00:00.000Z',
      rotation_deadline_at: null,
    })
    assert.notProperty(response.body().data, 'delivery')

    const unauthorized = await whoAmI(client, token)
    unauthorized.assertStatus(401)
    const grant = await tokenRequest(client, {
      grant_type: 'client_credentials',
      client_id: machine.clientId,
      client_secret: machine.secret,
    })
    grant.assertStatus(401)
    assert.equal(grant.body().error, 'invalid_client')
    assert.lengthOf(await db.from('oauth_access_tokens').where('tokenable_id', machine.clientId), 0)
    const ownership = await db
      .from('merchant_oauth_clients')
      .where('id', machine.ownershipId)
      .first()
    assert.isFalse(ownership.is_active)

    const revokePending = await client
      .post(route('merchant.machine_clients.revoke', { client: pending.client.id }))
      .header('Authorization', machine.admin.bearer)
      .json({ reason: 'Issued by mistake', current_password: machine.admin.password })
    revokePending.assertStatus(200)
    const consume = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: pending.delivery.id }))
      .header('Authorization', machine.admin.bearer)
      .json({ current_password: machine.admin.password })
    consume.assertStatus(410)
    assert.equal(consume.body().error_code, 'GONE')
    assert.lengthOf(await db.from('credential_deliveries').where('id', pending.delivery.id), 0)

    const audits = await auditRows('machine_client.revoke')
    assert.lengthOf(audits, 2)
    assert.equal(audits[0].reason, 'Server decommissioned')
  })

  test('repeat revoke: 409 CONFLICT, unchanged', async ({ client, assert }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    const path = route('merchant.machine_clients.revoke', { client: issued.client.id })
    const body = { reason: 'Server decommissioned', current_password: admin.password }
    await expectStatus(client.post(path).header('Authorization', admin.bearer).json(body), 200)
    advanceClock(60_000)
    const repeat = await client.post(path).header('Authorization', admin.bearer).json(body)
    repeat.assertStatus(409)
    assert.equal(repeat.body().error_code, 'CONFLICT')
    const ownership = await db.from('merchant_oauth_clients').where('id', issued.client.id).first()
    assert.equal(ownership.revoked_at.toISOString(), '2026-03-01T10:00:00.000Z')
  })

  test('wrong password, missing or extra fields: 422 and nothing revoked; developer 403', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('machineClientMutation'))
    const machine = await machineClientWithSecret(client)
    const path = route('merchant.machine_clients.revoke', { client: machine.ownershipId })
    const cases: Array<[unknown, string]> = [
      [
        { reason: 'Server decommissioned', current_password: 'Wrong-Password-1!' },
        'current_password',
      ],
      [{ current_password: machine.admin.password }, 'reason'],
      [{ reason: 'short', current_password: machine.admin.password }, 'reason'],
      [
        { reason: 'Server decommissioned', current_password: machine.admin.password, label: 'x' },
        'label',
      ],
    ]
    for (const [body, field] of cases) {
      const response = await client
        .post(path)
        .header('Authorization', machine.admin.bearer)
        .json(body as object)
      response.assertStatus(422)
      assert.properties(response.body().errors, [field])
    }
    const noBody = await client.post(path).header('Authorization', machine.admin.bearer)
    noBody.assertStatus(422)
    const developer = await teammate(machine.admin, 'developer')
    await expectStatus(client.post(path).header('Authorization', developer.bearer).json({}), 403)

    const token = await machineToken(client, machine)
    await expectStatus(whoAmI(client, token), 200)
    const oauthClientRow = await firstRow('oauth_clients')
    assert.isNull(oauthClientRow.revoked_at)
  })
})
