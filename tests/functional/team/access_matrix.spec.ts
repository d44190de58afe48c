import { test } from '@japa/runner'
import { addMember } from '#tests/helpers/portal'
import { createInvitation, invitationMailSetup, teamWithAdministrator } from '#tests/helpers/team'

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
    const team = await teamWithAdministrator()
    const developer = await addMember(team.merchant, team.client, 'developer')
    const target = await addMember(team.merchant, team.client, 'developer')
    const { invitation } = await createInvitation(team.merchant, team.admin)

    const rows: Array<{
      name: string
      call: (bearer: string) => Promise<any>
      developer: number
      administrator: number
    }> = [
      {
        name: 'GET members',
        call: (bearer) => client.get('/api/v1/portal/team/members').header('Authorization', bearer),
        developer: 200,
        administrator: 200,
      },
      {
        name: 'GET invitations',
        call: (bearer) =>
          client.get('/api/v1/portal/team/invitations').header('Authorization', bearer),
        developer: 403,
        administrator: 200,
      },
      {
        name: 'POST invitations',
        call: (bearer) =>
          client
            .post('/api/v1/portal/team/invitations')
            .header('Authorization', bearer)
            .json({ email: 'matrix@example.test', role: 'developer' }),
        developer: 403,
        administrator: 201,
      },
      {
        name: 'POST resend',
        call: (bearer) =>
          client
            .post(`/api/v1/portal/team/invitations/${invitation.id}/resend`)
            .header('Authorization', bearer),
        developer: 403,
        administrator: 200,
      },
      {
        name: 'DELETE invitation',
        call: (bearer) =>
          client
            .delete(`/api/v1/portal/team/invitations/${invitation.id}`)
            .header('Authorization', bearer),
        developer: 403,
        administrator: 204,
      },
      {
        name: 'PATCH role',
        call: (bearer) =>
          client
            .patch(`/api/v1/portal/team/members/${target.user.id}/role`)
            .header('Authorization', bearer)
            .json({ role: 'administrator' }),
        developer: 403,
        administrator: 200,
      },
      {
        name: 'DELETE member',
        call: (bearer) =>
          client
            .delete(`/api/v1/portal/team/members/${target.user.id}`)
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
      client.get('/api/v1/portal/team/members'),
      client.patch('/api/v1/portal/team/members/1/role').json({ role: 'developer' }),
      client.delete('/api/v1/portal/team/members/1'),
      client.get('/api/v1/portal/team/invitations'),
      client.post('/api/v1/portal/team/invitations').json({}),
      client.post('/api/v1/portal/team/invitations/6f1c2a8e-1111-4222-8333-444455556666/resend'),
      client.delete('/api/v1/portal/team/invitations/6f1c2a8e-1111-4222-8333-444455556666'),
    ]
    for (const call of calls) {
      const response = await call
      assert.equal(response.status(), 401)
      assert.equal(response.body().error_code, 'UNAUTHENTICATED')
    }
    const accept = await client.post('/api/v1/portal/team/invitations/accept').json({})
    accept.assertStatus(401)
    accept.assertBodyContains({ error_code: 'ECOSYSTEM_CLIENT_UNAUTHENTICATED' })
  })
})
