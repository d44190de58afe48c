/*
| One PORTAL_URL rule for every flow that links to or redirects to the Portal
| (decisions.md §3): password reset, email change and invitations. PORTAL_URL names
| an origin; a value with a path (other than "/"), query, fragment or credentials is
| unusable and each flow answers 503 SERVICE_UNAVAILABLE before writing anything.
*/
import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import type { FakeMailer } from '@adonisjs/mail'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { profileTestSetup, sentResetMails, sentVerificationMails } from '#tests/helpers/profile'
import { setEnv } from '#tests/helpers/env'
import { route } from '#tests/helpers/routes'
import InvitationMail from '#mails/invitation_mail'
import TeamInvitation from '#models/team_invitation'
import User from '#models/user'

let fake: FakeMailer
let restore: () => Promise<void>

async function everyFlow(client: ApiClient) {
  const member = await signedInMember('administrator')
  const reset = await client
    .post(route('auth.reset_link'))
    .json({ email: member.user.email, reset_url: 'https://portal.example.test/reset' })
  const emailChange = await client
    .patch(route('profile.update'))
    .header('Authorization', member.bearer)
    .json({ email: `changed-${member.user.id}@example.test` })
  const invitation = await client
    .post(route('team.invitations.store'))
    .header('Authorization', member.bearer)
    .json({ email: `invited-${member.user.id}@example.test`, role: 'developer' })
  return { member, reset, emailChange, invitation }
}

test.group('PORTAL_URL › one rule for reset, email change and invitations', (group) => {
  group.each.setup(async () => {
    await resetState()
    ;({ fake, restore } = profileTestSetup())
    return () => restore()
  })

  test('a PORTAL_URL with a path is unusable for every flow: 503 and nothing written', async ({
    client,
    assert,
  }) => {
    for (const value of ['https://portal.example.test/app', 'https://portal.example.test/app/']) {
      const restorePortal = setEnv('PORTAL_URL', value)
      try {
        const { member, reset, emailChange, invitation } = await everyFlow(client)
        for (const response of [reset, emailChange, invitation]) {
          assert.equal(response.status(), 503, value)
          assert.equal(response.body().error_code, 'SERVICE_UNAVAILABLE')
        }
        const stored = await User.findOrFail(member.user.id)
        assert.isNull(stored.pendingEmail)
        assert.lengthOf(await TeamInvitation.query().where('merchant_id', member.merchant.id), 0)
      } finally {
        restorePortal()
      }
    }
    assert.lengthOf(await sentResetMails(fake), 0)
    assert.lengthOf(fake.mails.sent(), 0)
  })

  test('an origin (trailing slash allowed) serves every flow, and every link is on it', async ({
    client,
    assert,
  }) => {
    const restorePortal = setEnv('PORTAL_URL', 'https://portal.example.test:443/')
    try {
      const { reset, emailChange, invitation } = await everyFlow(client)
      reset.assertStatus(200)
      emailChange.assertStatus(200)
      invitation.assertStatus(201)
    } finally {
      restorePortal()
    }
    const [resetMail] = await sentResetMails(fake)
    assert.isTrue(resetMail.resetLink.startsWith('https://portal.example.test/reset?'))
    assert.lengthOf(sentVerificationMails(fake), 1)
    const [invitationMail] = fake.mails.sent(
      (sent) => sent instanceof InvitationMail
    ) as InvitationMail[]
    const text = invitationMail.message.toJSON().message.text as string
    assert.match(
      text,
      /https:\/\/portal\.example\.test\/team\/invitations\/accept#token=[a-f0-9]{64}/
    )
  })
})
