import { test } from '@japa/runner'
import { liftLimit } from '#tests/helpers/limits'
import db from '@adonisjs/lucid/services/db'
import { resetState, untilSomeBackendWaitsForALock } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import {
  auditOutcomes,
  issueThroughApi,
  machineClientWithSecret,
  tokenRequest,
} from '#tests/helpers/machine'
import { route } from '#tests/helpers/routes'

const REASON = 'Routine credential rotation'

function countBy(statuses: number[]) {
  const counts: Record<number, number> = {}
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1
  return counts
}

test.group('Exactly once, under concurrency', (group) => {
  group.each.setup(() => resetState())

  test('50 racing consumes: exactly one caller receives the secret, the others 410', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('credentialConsume'))
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        client
          .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
          .header('Authorization', admin.bearer)
          .json({ current_password: admin.password })
      )
    )
    const statuses = responses.map((response) => response.status())
    assert.deepEqual(countBy(statuses), { 200: 1, 410: 49 })
    const secrets = responses
      .map((response) => response.body().data?.oauth_client_secret)
      .filter(Boolean)
    assert.lengthOf(secrets, 1)
    const outcomes = await auditOutcomes('credential_delivery.consume')
    assert.deepEqual(outcomes, ['success'])
  })

  test('50 racing consumes under the default limit: one 200, the rest 410 or 429', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        client
          .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
          .header('Authorization', admin.bearer)
          .json({ current_password: admin.password })
      )
    )
    const counts = countBy(responses.map((response) => response.status()))
    assert.equal(counts[200], 1)
    assert.equal((counts[410] ?? 0) + (counts[429] ?? 0), 49)
  })

  test('racing rotations of one client create exactly one replacement', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('machineClientMutation'))
    const admin = await signedInMember('administrator')
    const prior = await issueThroughApi(client, admin)
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        client
          .post(route('merchant.machine_clients.rotate', { client: prior.client.id }))
          .header('Authorization', admin.bearer)
          .json({
            label: `Replacement ${index}`,
            reason: REASON,
            current_password: admin.password,
            overlap_minutes: 30,
          })
      )
    )
    assert.deepEqual(countBy(responses.map((response) => response.status())), { 201: 1, 409: 9 })
    const replacements = await db
      .from('merchant_oauth_clients')
      .where('replaces_merchant_oauth_client_id', prior.client.id)
    assert.lengthOf(replacements, 1)
    assert.lengthOf(await db.from('oauth_clients'), 2)
    assert.lengthOf(await db.from('credential_deliveries'), 2)
  })

  test('racing issues with one label create exactly one client', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('machineClientMutation'))
    const admin = await signedInMember('administrator')
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        client
          .post(route('merchant.machine_clients.store'))
          .header('Authorization', admin.bearer)
          .json({ label: 'Orders server', reason: REASON, current_password: admin.password })
      )
    )
    assert.deepEqual(countBy(responses.map((response) => response.status())), { 201: 1, 422: 9 })
    assert.lengthOf(await db.from('oauth_clients'), 1)
  })

  test('revoke racing consume never hands out the secret of a revoked client', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(liftLimit('credentialConsume'))
    cleanup(liftLimit('machineClientMutation'))
    const admin = await signedInMember('administrator')
    for (let round = 0; round < 6; round++) {
      const issued = await issueThroughApi(client, admin)
      const consumes = Array.from({ length: 4 }, () =>
        client
          .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
          .header('Authorization', admin.bearer)
          .json({ current_password: admin.password })
      )
      const revoke = client
        .post(route('merchant.machine_clients.revoke', { client: issued.client.id }))
        .header('Authorization', admin.bearer)
        .json({ reason: 'Racing revocation', current_password: admin.password })
      const [revoked, ...consumed] = await Promise.all([revoke, ...consumes])
      revoked.assertStatus(200)
      const delivered = consumed.filter((response) => response.status() === 200)
      assert.isAtMost(delivered.length, 1)
      for (const response of consumed) assert.oneOf(response.status(), [200, 410])

      const audits = await db
        .from('audit_logs')
        .whereIn('action', ['credential_delivery.consume', 'machine_client.revoke'])
        .where('outcome', 'success')
        .where((query) =>
          query
            .where('target_id', issued.delivery.id)
            .orWhere('target_id', String(issued.client.id))
        )
        .orderBy('id', 'asc')
      if (delivered.length === 1) {
        // The handover committed before the revocation: the order of their audit records.
        assert.deepEqual(
          audits.map((row: { action: string }) => row.action),
          ['credential_delivery.consume', 'machine_client.revoke']
        )
        // And the secret handed out no longer works.
        const secret = delivered[0].body().data.oauth_client_secret
        const grant = await tokenRequest(client, {
          grant_type: 'client_credentials',
          client_id: String(issued.client.oauth_client_id),
          client_secret: secret,
        })
        grant.assertStatus(401)
      } else {
        assert.deepEqual(
          audits.map((row: { action: string }) => row.action),
          ['machine_client.revoke']
        )
      }
    }
  })
})

test.group('Token grant racing revocation', (group) => {
  group.each.setup(() => resetState())

  test('a grant that meets a revocation in progress waits for it and is refused: no token outlives the revoke', async ({
    client,
    assert,
  }) => {
    const { clientId, secret } = await machineClientWithSecret(client)
    const revocation = await db.transaction()
    try {
      await revocation.from('oauth_clients').where('id', clientId).forUpdate().first()
      await revocation
        .from('oauth_clients')
        .where('id', clientId)
        .update({ revoked_at: new Date() })
      const grant = tokenRequest(client, {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
      }).then((response) => response)
      await untilSomeBackendWaitsForALock()
      await revocation.commit()
      const response = await grant
      response.assertStatus(401)
      assert.equal(response.body().error, 'invalid_client')
    } finally {
      if (!revocation.isCompleted) await revocation.rollback()
    }
    const tokens = await db.from('oauth_access_tokens').where('tokenable_id', clientId)
    assert.lengthOf(tokens, 0)
  })
})
