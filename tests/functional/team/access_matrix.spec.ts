import { test } from '@japa/runner'
import type { ApiResponse } from '@japa/api-client'
import { signedInMember, teammate } from '#tests/helpers/portal'
import { createInvitation, invitationMailSetup } from '#tests/helpers/team'
import { route } from '#tests/helpers/routes'

/*
| portal-api.md › Role table: developers may list members and nothing else of the
| team; administrators may do everything. Each row is one endpoint.
*/
test.group('Team endpoints: developer and administrator matrix', (group) => {
  group.each.setup(() => invitationMailSetup())

  test('developer: list members 200, every other team endpoint 403 FORBIDDEN; administrator: each succeeds', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const target = await teammate(team, 'developer')
    const { invitation } = await createInvitation(team.merchant, team.user)

    const rows: Array<{
      name: string
      call: (bearer: string) => PromiseLike<ApiResponse>
      developer: number
      administrator: number
    }> = [
      {
        name: 'GET members',
        call: (bearer) => client.get(route('team.members.index')).header('Authorization', bearer),
        developer: 200,
        administrator: 200,
      },
      {
        name: 'GET invitations',
        call: (bearer) =>
          client.get(route('team.invitations.index')).header('Authorization', bearer),
        developer: 403,
        administrator: 200,
      },
      {
        name: 'POST invitations',
        call: (bearer) =>
          client
            .post(route('team.invitations.store'))
            .header('Authorization', bearer)
            .json({ email: 'matrix@example.test', role: 'developer' }),
        developer: 403,
        administrator: 201,
      },
      {
        name: 'POST resend',
        call: (bearer) =>
          client
            .post(route('team.invitations.resend', { invitation: invitation.id }))
            .header('Authorization', bearer),
        developer: 403,
        administrator: 200,
      },
      {
        name: 'DELETE invitation',
        call: (bearer) =>
          client
            .delete(route('team.invitations.destroy', { invitation: invitation.id }))
            .header('Authorization', bearer),
        developer: 403,
        administrator: 204,
      },
      {
        name: 'PATCH role',
        call: (bearer) =>
          client
            .patch(route('team.members.role', { member: target.user.id }))
            .header('Authorization', bearer)
            .json({ role: 'administrator' }),
        developer: 403,
        administrator: 200,
      },
      {
        name: 'DELETE member',
        call: (bearer) =>
          client
            .delete(route('team.members.destroy', { member: target.user.id }))
            .header('Authorization', bearer),
        developer: 403,
        administrator: 204,
      },
    ]
    for (const row of rows) {
      const asDeveloper = await row.call(developer.bearer)
      assert.equal(asDeveloper.status(), row.developer, `developer ${row.name}`)
      if (row.developer === 403) assert.equal(asDeveloper.body().error_code, 'FORBIDDEN')
      const asAdministrator = await row.call(team.bearer)
      assert.equal(asAdministrator.status(), row.administrator, `administrator ${row.name}`)
    }
  })

  test('every team endpoint needs a PAT (401), the acceptance endpoint application credentials', async ({
    client,
    assert,
  }) => {
    const calls = [
      client.get(route('team.members.index')),
      client.patch(route('team.members.role', { member: 1 })).json({ role: 'developer' }),
      client.delete(route('team.members.destroy', { member: 1 })),
      client.get(route('team.invitations.index')),
      client.post(route('team.invitations.store')).json({}),
      client.post(
        route('team.invitations.resend', { invitation: '6f1c2a8e-1111-4222-8333-444455556666' })
      ),
      client.delete(
        route('team.invitations.destroy', { invitation: '6f1c2a8e-1111-4222-8333-444455556666' })
      ),
    ]
    for (const call of calls) {
      const response = await call
      assert.equal(response.status(), 401)
      assert.equal(response.body().error_code, 'UNAUTHENTICATED')
    }
    const accept = await client.post(route('team.invitations.accept')).json({})
    accept.assertStatus(401)
    accept.assertBodyContains({ error_code: 'ECOSYSTEM_CLIENT_UNAUTHENTICATED' })
  })
})
