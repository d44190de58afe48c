import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { captureLogs } from '#tests/helpers/logs'
import { machineClientWithSecret, tokenRequest, whoAmI } from '#tests/helpers/machine'
import { route } from '#tests/helpers/routes'
import { teammate } from '#tests/helpers/portal'

test.group('No secret appears in any list, log line, error or audit record', (group) => {
  group.each.setup(() => resetState())

  test('a full lifecycle never echoes the client secret or tokens', async ({
    client,
    assert,
    cleanup,
  }) => {
    const logs = captureLogs()
    cleanup(logs.restore)
    const machine = await machineClientWithSecret(client)
    const granted = await tokenRequest(client, {
      grant_type: 'client_credentials',
      client_id: machine.clientId,
      client_secret: machine.secret,
    })
    const accessToken = granted.body().access_token as string
    const seen: string[] = []
    const keep = (response: { body(): unknown; headers(): unknown }) => {
      seen.push(JSON.stringify(response.body()), JSON.stringify(response.headers()))
      return response
    }
    keep(await whoAmI(client, accessToken))
    const developer = await teammate(machine.admin, 'developer')
    for (const member of [machine.admin, developer]) {
      keep(
        await client
          .get(route('merchant.machine_clients.index'))
          .header('Authorization', member.bearer)
      )
    }
    // Failures around the secret: wrong secrets, Basic with a near-miss, a JSON body with it.
    keep(
      await tokenRequest(client, {
        grant_type: 'client_credentials',
        client_id: machine.clientId,
        client_secret: `${machine.secret}-nope`,
      })
    )
    keep(
      await tokenRequest(
        client,
        { grant_type: 'client_credentials', client_secret: machine.secret },
        { id: machine.clientId, secret: machine.secret }
      )
    )
    keep(
      await client
        .post(route('oauth.token'))
        .json({ client_secret: machine.secret, grant_type: 'x' })
    )
    keep(
      await client
        .post(route('merchant.machine_clients.store'))
        .header('Authorization', machine.admin.bearer)
        .json({ label: 'x', reason: machine.secret, current_password: machine.secret })
    )
    keep(
      await client
        .post(route('merchant.machine_clients.rotate', { client: machine.ownershipId }))
        .header('Authorization', machine.admin.bearer)
        .json({
          label: 'Replacement server',
          reason: 'Routine credential rotation',
          current_password: machine.admin.password,
          overlap_minutes: 5,
        })
    )
    keep(
      await client
        .post(
          route('merchant.credential_deliveries.consume', {
            delivery: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
          })
        )
        .header('Authorization', machine.admin.bearer)
        .json({ current_password: machine.admin.password })
    )
    keep(
      await client
        .post(route('merchant.machine_clients.revoke', { client: machine.ownershipId }))
        .header('Authorization', machine.admin.bearer)
        .json({ reason: 'Server decommissioned', current_password: machine.admin.password })
    )
    keep(await whoAmI(client, accessToken))

    const tokenSecret = accessToken.split('.')[1]
    const audits = JSON.stringify(await db.from('audit_logs'))
    const stored = JSON.stringify([
      await db.from('oauth_clients'),
      await db.from('merchant_oauth_clients'),
      await db.from('credential_deliveries'),
      await db.from('oauth_access_tokens'),
    ])
    for (const secretValue of [machine.secret, tokenSecret, machine.admin.password]) {
      for (const text of seen) assert.notInclude(text, secretValue)
      for (const line of logs.lines) assert.notInclude(line, secretValue)
      assert.notInclude(audits, secretValue)
      assert.notInclude(stored, secretValue)
    }
    assert.isAbove(logs.lines.length, 0)
  })
})
