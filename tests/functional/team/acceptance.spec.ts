import { test } from '@japa/runner'
import { clearLimits, setLimit } from '#tests/helpers/limits'
import { setEnv } from '#tests/helpers/env'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { resetState, untilSomeBackendWaitsForALock } from '#tests/helpers/database'
import {
  createInvitation,
  fakeMail,
  invitationMailSetup,
  NEW_PASSWORD,
  proofOf,
  restoreMail,
  TEST_PORTAL_URL,
} from '#tests/helpers/team'
import {
  appHeaders,
  createMerchantWithUser,
  issuePat,
  PORTAL_ORIGIN,
  signedInMember,
  teammate,
} from '#tests/helpers/portal'
import { UserFactory, DEFAULT_TEST_PASSWORD } from '#database/factories/user_factory'
import AuditLog from '#models/audit_log'
import TeamInvitation from '#models/team_invitation'
import User, { ROLES } from '#models/user'
import type InvitationMail from '#mails/invitation_mail'
import type PortalClient from '#models/portal_client'
import type { ApiClient } from '@japa/api-client'
import { route } from '#tests/helpers/routes'
import { portalLogin } from '#tests/helpers/requests'

const ACCEPTED_MESSAGE = 'Invitation accepted. Log in to continue.'

/**
 * The new account's first name, two words: the factories' (faker) first names are one
 * word, so no other account of a test has it (with "Nina", one factory user in 5,000
 * did, and a test finding no account so named failed by chance).
 */
const INVITEE_FIRST_NAME = 'Nina Invitee'

function newAccountBody(token: string, overrides: Record<string, unknown> = {}) {
  return {
    token,
    first_name: INVITEE_FIRST_NAME,
    last_name: 'Newcomer',
    password: NEW_PASSWORD,
    password_confirmation: NEW_PASSWORD,
    ...overrides,
  }
}

/** POSTs an acceptance with the Portal application credentials of `team`. */
function accept(client: ApiClient, team: { client: PortalClient }, body: object) {
  return client.post(route('team.invitations.accept')).headers(appHeaders(team.client)).json(body)
}

async function tokensOf(userId: number) {
  const row = await db
    .from('auth_access_tokens')
    .where('tokenable_id', userId)
    .count('* as total')
    .first()
  return Number(row.total)
}

/** A user removed from a merchant earlier: detached, inactive. */
async function detachedAccount(overrides: Partial<User> = {}) {
  return UserFactory.merge({
    merchantId: null,
    isActive: false,
    role: ROLES.developer,
    ...overrides,
  }).create()
}

test.group('POST /portal/team/invitations/accept › application credentials', (group) => {
  group.each.setup(() => resetState())

  test('401 ECOSYSTEM_CLIENT_UNAUTHENTICATED before the body is processed', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const { proof } = await createInvitation(team.merchant, team.user)
    const headerSets: Record<string, string>[] = [
      {},
      { ...appHeaders(team.client, 'wrong-secret') },
      { Authorization: appHeaders(team.client).Authorization },
      { ...appHeaders(team.client), 'X-Service-Application': 'other' },
      { ...appHeaders(team.client), Origin: 'https://evil.example' },
      { 'Authorization': team.bearer, 'X-Service-Application': 'merchant_portal' },
    ]
    for (const headers of headerSets) {
      const response = await client
        .post(route('team.invitations.accept'))
        .headers(headers)
        .header('Content-Type', 'application/json')
        .unsafeJson('{ this is not json')
      assert.equal(response.status(), 401, JSON.stringify(Object.keys(headers)))
      assert.equal(response.body().error_code, 'ECOSYSTEM_CLIENT_UNAUTHENTICATED')
    }
    const valid = await accept(client, team, newAccountBody(proof))
    valid.assertStatus(200)
  })
})

test.group('POST /portal/team/invitations/accept › end to end', (group) => {
  group.each.setup(() => invitationMailSetup())

  test('new account: invite → mail → accept → login; the invitation email becomes username and email, verified, with the invited role and merchant', async ({
    client,
    assert,
  }) => {
    const mailer = fakeMail()
    const team = await signedInMember('administrator')
    const invited = await client
      .post(route('team.invitations.store'))
      .header('Authorization', team.bearer)
      .json({ email: 'Fresh.Person@Example.test', role: 'administrator' })
    invited.assertStatus(201)
    const proof = proofOf(mailer.mails.sent()[0] as InvitationMail)!

    const response = await client
      .post(route('team.invitations.accept'))
      .headers({ ...appHeaders(team.client), Origin: PORTAL_ORIGIN })
      .json(newAccountBody(proof, { first_name: '  Fresh  ', last_name: ' Person ' }))
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store, private')
    const body = response.body()
    assert.equal(body.message, ACCEPTED_MESSAGE)
    assert.notProperty(body.data, 'access_token')
    assert.notInclude(JSON.stringify(body), 'pat_')
    const user = await User.findByOrFail('email', 'fresh.person@example.test')
    assert.deepEqual(body.data, {
      id: user.id,
      first_name: 'Fresh',
      last_name: 'Person',
      email: 'fresh.person@example.test',
      role: 'administrator',
      is_active: true,
      joined_at: user.createdAt.toUTC().toISO(),
    })
    assert.equal(user.username, 'fresh.person@example.test')
    assert.equal(user.merchantId, team.merchant.id)
    assert.equal(user.role, ROLES.administrator)
    assert.isNotNull(user.emailVerifiedAt)
    assert.notEqual(user.password, NEW_PASSWORD)
    assert.equal(await tokensOf(user.id), 0)

    const invitation = await TeamInvitation.findOrFail(invited.body().data.id)
    assert.equal(invitation.status, 'accepted')
    assert.equal(invitation.acceptedUserId, user.id)
    const audit = await AuditLog.query()
      .where('action', 'team.invitation.accept')
      .where('outcome', 'success')
    assert.lengthOf(audit, 1)
    assert.notInclude(JSON.stringify(audit[0].serialize()), proof)

    const login = await portalLogin(
      client,
      team.client,
      { username: 'fresh.person@example.test', password: NEW_PASSWORD },
      { Origin: PORTAL_ORIGIN }
    )
    login.assertStatus(200)
    assert.equal(login.body().data.user.id, user.id)
    assert.equal(login.body().data.user.role, 1)
    assert.equal(login.body().data.user.merchant_id, team.merchant.id)

    const members = await client
      .get(route('team.members.index'))
      .header('Authorization', `Bearer ${login.body().data.access_token}`)
    members.assertStatus(200)
    assert.equal(members.body().meta.total, 2)

    // The proof is spent: accepting again is 410.
    const again = await accept(client, team, newAccountBody(proof))
    again.assertStatus(410)
    again.assertBodyContains({ error_code: 'INVITATION_UNAVAILABLE' })
  })

  test('existing detached account: remove → invite → mail → accept with current password → login; reactivated with password and profile unchanged, role from the invitation, prior tokens revoked', async ({
    client,
    assert,
  }) => {
    const mailer = fakeMail()
    const team = await signedInMember('administrator')
    const member = await teammate(team, 'developer')
    const removed = await client
      .delete(route('team.members.destroy', { member: member.user.id }))
      .header('Authorization', team.bearer)
    removed.assertStatus(204)
    await member.user.refresh()
    const before = {
      password: member.user.password,
      firstName: member.user.firstName,
      lastName: member.user.lastName,
      username: member.user.username,
    }
    // A token issued while detached (e.g. by an operator tool) must not survive acceptance.
    await issuePat(member.user, team.client)

    const invited = await client
      .post(route('team.invitations.store'))
      .header('Authorization', team.bearer)
      .json({ email: member.user.email.toUpperCase(), role: 'administrator' })
    invited.assertStatus(201)
    const proof = proofOf(mailer.mails.sent()[0] as InvitationMail)!

    const response = await accept(client, team, {
      token: proof,
      current_password: DEFAULT_TEST_PASSWORD,
    })
    response.assertStatus(200)
    assert.equal(response.body().message, ACCEPTED_MESSAGE)
    assert.deepInclude(response.body().data, {
      id: member.user.id,
      role: 'administrator',
      is_active: true,
      first_name: before.firstName,
      last_name: before.lastName,
    })

    const user = await User.findOrFail(member.user.id)
    assert.equal(user.merchantId, team.merchant.id)
    assert.isTrue(user.isActive)
    assert.equal(user.role, ROLES.administrator)
    assert.equal(user.password, before.password)
    assert.equal(user.username, before.username)
    assert.equal(user.firstName, before.firstName)
    assert.isNotNull(user.emailVerifiedAt)
    assert.equal(await tokensOf(user.id), 0)

    const login = await portalLogin(client, team.client, {
      username: user.email,
      password: DEFAULT_TEST_PASSWORD,
    })
    login.assertStatus(200)
    assert.equal(login.body().data.user.role, 1)
  })
})

test.group('POST /portal/team/invitations/accept › input', (group) => {
  group.each.setup(() => resetState())

  test('the proof must be 64 lowercase hex characters and unlisted fields are rejected (422)', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const { proof } = await createInvitation(team.merchant, team.user)
    const bodies: unknown[] = [
      {},
      newAccountBody(proof.toUpperCase()),
      newAccountBody(proof.slice(1)),
      newAccountBody(`${proof}0`),
      newAccountBody(`${proof.slice(1)}g`),
      newAccountBody(null as any),
      { ...newAccountBody(proof), token: 12345 },
      { ...newAccountBody(proof), token: [proof] },
      { ...newAccountBody(proof), role: 'administrator' },
      { ...newAccountBody(proof), email: 'other@example.test' },
      [],
    ]
    for (const body of bodies) {
      await clearLimits()
      const response = await accept(client, team, body as object)
      assert.equal(response.status(), 422, JSON.stringify(body))
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    }
    assert.lengthOf(await User.query().where('first_name', INVITEE_FIRST_NAME), 0)
  })

  test('new account flow: names and a policy password are required; current_password is prohibited', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const { proof, invitation } = await createInvitation(team.merchant, team.user)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ current_password: DEFAULT_TEST_PASSWORD }, 'current_password'],
      [{ first_name: undefined }, 'first_name'],
      [{ first_name: '' }, 'first_name'],
      [{ first_name: '   ' }, 'first_name'],
      [{ last_name: 'x'.repeat(51) }, 'last_name'],
      [{ last_name: null }, 'last_name'],
      [{ first_name: 42 }, 'first_name'],
      [{ password: 'short1!A', password_confirmation: 'short1!A' }, 'password'],
      [{ password: 'alllowercase-123!', password_confirmation: 'alllowercase-123!' }, 'password'],
      [{ password: 'NoDigitsHere!!!!', password_confirmation: 'NoDigitsHere!!!!' }, 'password'],
      [{ password: 'NoSymbols12345abc', password_confirmation: 'NoSymbols12345abc' }, 'password'],
      [{ password_confirmation: `${NEW_PASSWORD} ` }, 'password_confirmation'],
      [{ password: 'A1!a'.repeat(33), password_confirmation: 'A1!a'.repeat(33) }, 'password'],
    ]
    for (const [overrides, field] of cases) {
      await clearLimits()
      const response = await accept(client, team, newAccountBody(proof, overrides))
      assert.equal(response.status(), 422, JSON.stringify(overrides))
      assert.property(response.body().errors, field, JSON.stringify(overrides))
    }
    await invitation.refresh()
    assert.equal(invitation.status, 'pending')
  })

  test('existing account flow: current_password is required; names and new password are prohibited', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const account = await detachedAccount()
    const { proof, invitation } = await createInvitation(team.merchant, team.user, {
      email: account.email,
    })
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'current_password'],
      [{ current_password: '' }, 'current_password'],
      [{ current_password: 'x'.repeat(129) }, 'current_password'],
      [{ current_password: DEFAULT_TEST_PASSWORD, first_name: 'A' }, 'first_name'],
      [{ current_password: DEFAULT_TEST_PASSWORD, last_name: 'B' }, 'last_name'],
      [{ current_password: DEFAULT_TEST_PASSWORD, password: NEW_PASSWORD }, 'password'],
      [
        { current_password: DEFAULT_TEST_PASSWORD, password_confirmation: NEW_PASSWORD },
        'password_confirmation',
      ],
    ]
    for (const [fields, field] of cases) {
      await clearLimits()
      const response = await accept(client, team, { token: proof, ...fields })
      assert.equal(response.status(), 422, JSON.stringify(fields))
      assert.property(response.body().errors, field, JSON.stringify(fields))
    }
    await invitation.refresh()
    assert.equal(invitation.status, 'pending')
    assert.equal(invitation.failedAttempts, 0)
  })
})

test.group('POST /portal/team/invitations/accept › invitation state', (group) => {
  group.each.setup(() => resetState())

  test('an unknown proof is 404', async ({ client }) => {
    const team = await signedInMember('administrator')
    await createInvitation(team.merchant, team.user)
    const response = await accept(client, team, newAccountBody('a'.repeat(64)))
    response.assertStatus(404)
    response.assertBodyContains({ error_code: 'NOT_FOUND' })
  })

  test('expired, revoked or accepted invitations are 410 INVITATION_UNAVAILABLE', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const states: Array<Partial<TeamInvitation>> = [
      { expiresAt: DateTime.now().minus({ seconds: 1 }) },
      { status: 'revoked' },
      { status: 'accepted' },
    ]
    for (const state of states) {
      const { proof, invitation } = await createInvitation(team.merchant, team.user, state)
      const response = await accept(client, team, newAccountBody(proof))
      response.assertStatus(410)
      response.assertBodyContains({ error_code: 'INVITATION_UNAVAILABLE' })
      const status = invitation.status
      await invitation.refresh()
      assert.equal(invitation.status, status)
    }
    assert.lengthOf(await User.query().where('first_name', INVITEE_FIRST_NAME), 0)
  })

  test('the inviter must still be an active administrator of an active merchant (410 otherwise)', async ({
    client,
    assert,
  }) => {
    const scenarios: Array<(team: Awaited<ReturnType<typeof signedInMember>>) => Promise<void>> = [
      async (team) => {
        team.user.role = ROLES.developer
        await team.user.save()
      },
      async (team) => {
        team.user.isActive = false
        await team.user.save()
      },
      async (team) => {
        team.user.merchantId = null
        await team.user.save()
      },
      async (team) => {
        team.merchant.isActive = false
        await team.merchant.save()
      },
    ]
    for (const change of scenarios) {
      await resetState()
      const team = await signedInMember('administrator')
      const { proof } = await createInvitation(team.merchant, team.user)
      await change(team)
      const response = await accept(client, team, newAccountBody(proof))
      response.assertStatus(410)
      response.assertBodyContains({ error_code: 'INVITATION_UNAVAILABLE' })
      assert.lengthOf(await User.query().where('first_name', INVITEE_FIRST_NAME), 0)
    }
  })

  test('10 wrong current passwords are 422 on current_password, counted and audited; then 410 even with the right one until resend', async ({
    client,
    assert,
  }) => {
    const mailer = fakeMail()
    const restoreUrl = setEnv('PORTAL_URL', TEST_PORTAL_URL)
    try {
      const team = await signedInMember('administrator')
      const account = await detachedAccount()
      const { proof, invitation } = await createInvitation(team.merchant, team.user, {
        email: account.email,
      })
      for (let attempt = 1; attempt <= 10; attempt++) {
        await clearLimits()
        const response = await accept(client, team, {
          token: proof,
          current_password: `wrong-${attempt}`,
        })
        assert.equal(response.status(), 422, `attempt ${attempt}`)
        assert.property(response.body().errors, 'current_password')
        await invitation.refresh()
        assert.equal(invitation.failedAttempts, attempt)
      }
      const audits = await AuditLog.query()
        .where('action', 'team.invitation.accept')
        .where('outcome', 'failure')
        .orderBy('id')
      assert.lengthOf(audits, 10)
      assert.deepEqual(
        audits.map((audit) => audit.metadata.failed_attempts),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
      )
      assert.notInclude(JSON.stringify(audits.map((audit) => audit.serialize())), 'wrong-')

      await clearLimits()
      const blocked = await accept(client, team, {
        token: proof,
        current_password: DEFAULT_TEST_PASSWORD,
      })
      blocked.assertStatus(410)
      blocked.assertBodyContains({ error_code: 'INVITATION_UNAVAILABLE' })
      await account.refresh()
      assert.isNull(account.merchantId)

      const resent = await client
        .post(route('team.invitations.resend', { invitation: invitation.id }))
        .header('Authorization', team.bearer)
      resent.assertStatus(200)
      const newProof = proofOf(mailer.mails.sent()[0] as InvitationMail)!
      const accepted = await accept(client, team, {
        token: newProof,
        current_password: DEFAULT_TEST_PASSWORD,
      })
      accepted.assertStatus(200)
    } finally {
      restoreMail()
      restoreUrl()
    }
  })
})

test.group('POST /portal/team/invitations/accept › account conflicts', (group) => {
  group.each.setup(() => resetState())

  test('an internal account for the email is 409 USER_NOT_ELIGIBLE', async ({ client }) => {
    const team = await signedInMember('administrator')
    const { proof, invitation } = await createInvitation(team.merchant, team.user)
    await UserFactory.merge({
      merchantId: null,
      role: 99,
      email: invitation.email,
      username: invitation.email,
    }).create()
    const response = await accept(client, team, {
      token: proof,
      current_password: DEFAULT_TEST_PASSWORD,
    })
    response.assertStatus(409)
    response.assertBodyContains({ error_code: 'USER_NOT_ELIGIBLE' })
  })

  test('membership in this or another merchant is 409', async ({ client }) => {
    const team = await signedInMember('administrator')
    const { proof: ownProof, invitation: own } = await createInvitation(team.merchant, team.user)
    await teammate(team, 'developer', {
      email: own.email,
      username: own.email,
    })
    const ownResponse = await accept(client, team, {
      token: ownProof,
      current_password: DEFAULT_TEST_PASSWORD,
    })
    ownResponse.assertStatus(409)
    ownResponse.assertBodyContains({ error_code: 'MEMBER_ALREADY_EXISTS' })

    const { proof, invitation } = await createInvitation(team.merchant, team.user)
    const { merchant: elsewhere } = await createMerchantWithUser()
    await UserFactory.merge({
      merchantId: elsewhere.id,
      email: invitation.email,
      username: invitation.email,
    }).create()
    const response = await accept(client, team, {
      token: proof,
      current_password: DEFAULT_TEST_PASSWORD,
    })
    response.assertStatus(409)
    response.assertBodyContains({ error_code: 'USER_BELONGS_TO_ANOTHER_MERCHANT' })
  })

  test('an email already used as another account username is 409 USER_IDENTITY_CONFLICT', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const { proof, invitation } = await createInvitation(team.merchant, team.user)
    await detachedAccount({ username: invitation.email, email: 'someone-else@example.test' })
    const response = await accept(client, team, newAccountBody(proof))
    response.assertStatus(409)
    response.assertBodyContains({ error_code: 'USER_IDENTITY_CONFLICT' })
    await invitation.refresh()
    assert.equal(invitation.status, 'pending')
  })

  test('an email another account is verifying (unexpired pending email) is 409 USER_IDENTITY_CONFLICT', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const { proof, invitation } = await createInvitation(team.merchant, team.user)
    const verifying = await detachedAccount({
      email: 'verifying@example.test',
      username: 'verifying',
    })
    verifying.merge({
      pendingEmail: invitation.email,
      pendingEmailExpiresAt: DateTime.now().plus({ minutes: 10 }),
    })
    await verifying.save()
    const response = await accept(client, team, newAccountBody(proof))
    response.assertStatus(409)
    response.assertBodyContains({ error_code: 'USER_IDENTITY_CONFLICT' })
    await invitation.refresh()
    assert.equal(invitation.status, 'pending')

    verifying.pendingEmailExpiresAt = DateTime.now().minus({ minutes: 1 })
    await verifying.save()
    const afterExpiry = await accept(client, team, newAccountBody(proof))
    afterExpiry.assertStatus(200)
  })
})

test.group('POST /portal/team/invitations/accept › concurrency', (group) => {
  group.each.setup(() => resetState())

  test('the same proof accepted twice at once: exactly one succeeds', async ({
    client,
    assert,
  }) => {
    for (let round = 0; round < 3; round++) {
      await resetState()
      const team = await signedInMember('administrator')
      const { proof, invitation } = await createInvitation(team.merchant, team.user)
      const responses = await Promise.all(
        [0, 1].map(() => accept(client, team, newAccountBody(proof)))
      )
      const statuses = responses.map((response) => response.status())
      assert.equal(statuses.filter((status) => status === 200).length, 1, String(statuses))
      const loser = responses.find((response) => response.status() !== 200)!
      assert.oneOf(`${loser.status()} ${loser.body().error_code}`, [
        '409 USER_IDENTITY_CONFLICT',
        '410 INVITATION_UNAVAILABLE',
      ])
      assert.lengthOf(await User.query().where('email', invitation.email), 1)
    }
  })

  test('a double acceptance whose winner commits between the loser reading the proof and its account checks is 409 USER_IDENTITY_CONFLICT', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const { proof, invitation } = await createInvitation(team.merchant, team.user)
    // The loser reads the invitation, then blocks on its first read of `users`
    // (held by this transaction) while the "winner" completes the acceptance.
    const trx = await db.transaction()
    await trx.rawQuery('LOCK TABLE users IN ACCESS EXCLUSIVE MODE')
    const loser = accept(client, team, newAccountBody(proof))
    const pending = loser.then((response) => response)
    pending.catch(() => undefined)
    await untilSomeBackendWaitsForALock({ query: '%from "users"%' })
    const winner = await User.create(
      {
        merchantId: team.merchant.id,
        username: invitation.email,
        email: invitation.email,
        password: NEW_PASSWORD,
        firstName: 'Won',
        lastName: 'First',
        role: invitation.role,
        isActive: true,
      },
      { client: trx }
    )
    await trx
      .from('team_invitations')
      .where('id', invitation.id)
      .update({ status: 'accepted', accepted_user_id: winner.id })
    await trx.commit()

    const response = await pending
    response.assertStatus(409)
    response.assertBodyContains({ error_code: 'USER_IDENTITY_CONFLICT' })
    assert.lengthOf(await User.query().where('email', invitation.email), 1)
  })

  test('the same detached account accepting two merchants invitations at once joins exactly one', async ({
    client,
    assert,
  }) => {
    const first = await signedInMember('administrator')
    const second = await signedInMember('administrator')
    const account = await detachedAccount()
    const a = await createInvitation(first.merchant, first.user, { email: account.email })
    const b = await createInvitation(second.merchant, second.user, { email: account.email })
    const responses = await Promise.all([
      accept(client, first, { token: a.proof, current_password: DEFAULT_TEST_PASSWORD }),
      accept(client, second, { token: b.proof, current_password: DEFAULT_TEST_PASSWORD }),
    ])
    assert.deepEqual(responses.map((response) => response.status()).sort(), [200, 409])
    const loser = responses.find((response) => response.status() === 409)!
    assert.oneOf(loser.body().error_code, [
      'USER_IDENTITY_CONFLICT',
      'USER_BELONGS_TO_ANOTHER_MERCHANT',
    ])
    await account.refresh()
    assert.oneOf(account.merchantId, [first.merchant.id, second.merchant.id])
    assert.lengthOf(await TeamInvitation.query().where('status', 'accepted'), 1)
  })

  test('two merchants invitations of one new email accepted at once create exactly one account', async ({
    client,
    assert,
  }) => {
    const first = await signedInMember('administrator')
    const second = await signedInMember('administrator')
    const a = await createInvitation(first.merchant, first.user, { email: 'both@example.test' })
    const b = await createInvitation(second.merchant, second.user, { email: 'both@example.test' })
    const responses = await Promise.all([
      accept(client, first, newAccountBody(a.proof)),
      accept(client, second, newAccountBody(b.proof)),
    ])
    assert.deepEqual(responses.map((response) => response.status()).sort(), [200, 409])
    const loser = responses.find((response) => response.status() === 409)!
    assert.oneOf(loser.body().error_code, [
      'USER_IDENTITY_CONFLICT',
      'USER_BELONGS_TO_ANOTHER_MERCHANT',
    ])
    assert.lengthOf(await User.query().where('email', 'both@example.test'), 1)
  })
})

test.group('POST /portal/team/invitations/accept › limits', (group) => {
  group.each.setup(() => resetState())

  test('5 per minute per proof hash and IP, rejected requests included', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(setLimit('invitationAcceptanceIp', 100))
    const team = await signedInMember('administrator')
    const { proof } = await createInvitation(team.merchant, team.user)
    for (let attempt = 0; attempt < 5; attempt++) {
      const response = await accept(client, team, { token: proof, first_name: '' })
      assert.equal(response.status(), 422)
    }
    const throttled = await accept(client, team, newAccountBody(proof))
    throttled.assertStatus(429)
    throttled.assertBodyContains({ error_code: 'RATE_LIMITED' })
    assert.match(throttled.header('retry-after') ?? '', /^[1-9][0-9]*$/)

    const { proof: otherProof } = await createInvitation(team.merchant, team.user)
    const other = await accept(client, team, newAccountBody(otherProof))
    other.assertStatus(200)
  })

  test('5 per minute per IP whatever the proof', async ({ client, assert }) => {
    const team = await signedInMember('administrator')
    for (let attempt = 0; attempt < 5; attempt++) {
      const response = await accept(client, team, newAccountBody(String(attempt).repeat(64)))
      assert.equal(response.status(), 404)
    }
    const { proof } = await createInvitation(team.merchant, team.user)
    const throttled = await accept(client, team, newAccountBody(proof))
    throttled.assertStatus(429)
    assert.lengthOf(
      await AuditLog.query()
        .where('action', 'team.invitation.accept')
        .where('outcome', 'throttled'),
      1
    )
  })
})
