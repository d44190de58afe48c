import { test } from '@japa/runner'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { ApiClient } from '@japa/api-client'
import { clearLimits } from '#tests/helpers/limits'
import { setEnv } from '#tests/helpers/env'
import { createHash } from 'node:crypto'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { resetState, setNow } from '#tests/helpers/database'
import {
  createInvitation,
  fakeMail,
  invitationMailSetup,
  proofOf,
  TEST_PORTAL_URL,
  whileTeamLocked,
} from '#tests/helpers/team'
import {
  appHeaders,
  createMerchantWithUser,
  issuePat,
  signedInMember,
  teammate,
} from '#tests/helpers/portal'
import { UserFactory } from '#database/factories/user_factory'
import AuditLog from '#models/audit_log'
import TeamInvitation from '#models/team_invitation'
import { ROLES } from '#models/user'
import InvitationMail from '#mails/invitation_mail'
import { route } from '#tests/helpers/routes'

const INVITATION_FIELDS = [
  'created_at',
  'email',
  'expires_at',
  'id',
  'invited_by',
  'role',
  'status',
].sort()

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

function invite(client: ApiClient, bearer: string, body: unknown) {
  return client.post(route('team.invitations.store')).header('Authorization', bearer).json(body)
}

function listInvitations(client: ApiClient, bearer: string) {
  return client.get(route('team.invitations.index')).header('Authorization', bearer)
}

function resend(client: ApiClient, bearer: string, id: string) {
  return client
    .post(route('team.invitations.resend', { invitation: id }))
    .header('Authorization', bearer)
}

function revoke(client: ApiClient, bearer: string, id: string) {
  return client
    .delete(route('team.invitations.destroy', { invitation: id }))
    .header('Authorization', bearer)
}

test.group('POST /portal/team/invitations', (group) => {
  group.each.setup(() => invitationMailSetup())

  test('a developer gets 403 FORBIDDEN before validation', async ({ client }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const response = await invite(client, developer.bearer, { nonsense: true })
    response.assertStatus(403)
    response.assertBodyContains({ error_code: 'FORBIDDEN' })
  })

  test('creates a pending invitation valid 48 hours, emails the accept link with the proof, stores only its SHA-256', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00.000Z')
    const mailer = fakeMail()
    const team = await signedInMember('administrator')
    const response = await invite(client, team.bearer, {
      email: '  New.Person@Example.TEST ',
      role: 'developer',
    })
    response.assertStatus(201)
    response.assertHeader('cache-control', 'no-store, private')
    const body = response.body()
    assert.equal(body.message, 'Invitation sent.')
    assert.deepEqual(Object.keys(body.data).sort(), [...INVITATION_FIELDS, 'sent'].sort())
    assert.match(
      body.data.id,
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    )
    assert.deepInclude(body.data, {
      email: 'new.person@example.test',
      role: 'developer',
      status: 'pending',
      invited_by: team.user.id,
      created_at: '2026-03-01T10:00:00.000Z',
      expires_at: '2026-03-03T10:00:00.000Z',
      sent: true,
    })

    const sent = mailer.mails.sent()
    assert.lengthOf(sent, 1)
    const mailSent = sent[0] as InvitationMail
    assert.instanceOf(mailSent, InvitationMail)
    const message = mailSent.message.toJSON().message
    assert.deepEqual(
      JSON.stringify(message.to).includes('new.person@example.test'),
      true,
      JSON.stringify(message.to)
    )
    const proof = proofOf(mailSent)!
    assert.match(proof, /^[a-f0-9]{64}$/)
    assert.include(message.text, `${TEST_PORTAL_URL}/team/invitations/accept#token=${proof}`)
    assert.include(message.html, `${TEST_PORTAL_URL}/team/invitations/accept#token=${proof}`)

    const stored = await db.from('team_invitations').where('id', body.data.id).first()
    assert.equal(stored.token_hash, sha256(proof))
    assert.notInclude(JSON.stringify(stored), proof)
    assert.notInclude(JSON.stringify(body), proof)
    assert.notInclude(JSON.stringify(body), stored.token_hash)

    const audit = await AuditLog.query().where('action', 'team.invitation.create')
    assert.lengthOf(audit, 1)
    assert.equal(audit[0].targetId, body.data.id)
    assert.notInclude(JSON.stringify(audit[0].serialize()), proof)
  })

  test('each invitation gets its own proof', async ({ client, assert }) => {
    const mailer = fakeMail()
    const team = await signedInMember('administrator')
    await invite(client, team.bearer, { email: 'a@example.test', role: 'developer' })
    await invite(client, team.bearer, { email: 'b@example.test', role: 'administrator' })
    const proofs = mailer.mails.sent().map((sent) => proofOf(sent as InvitationMail))
    assert.lengthOf(proofs, 2)
    assert.notEqual(proofs[0], proofs[1])
  })

  test('invalid email or role, unlisted fields and hostile values are 422 with nothing written', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const bodies: unknown[] = [
      {},
      { email: 'someone@example.test' },
      { role: 'developer' },
      { email: 'not-an-email', role: 'developer' },
      { email: `${'a'.repeat(250)}@example.test`, role: 'developer' },
      { email: null, role: 'developer' },
      { email: '', role: 'developer' },
      { email: 12, role: 'developer' },
      { email: ['a@example.test'], role: 'developer' },
      { email: 'a@example.test', role: 'Developer' },
      { email: 'a@example.test', role: 10 },
      { email: 'a@example.test', role: null },
      { email: 'a@example.test', role: 'developer', merchant_role: 'x' },
      { email: 'a@example.test', role: 'developer', token: 'x' },
      { email: 'ünïcödé@@example.test', role: 'developer' },
      { email: 'a@example.test', role: 'developer', id: 99999999999999999999999 },
      // 190 characters, but 310 once lowercased ('İ' becomes two characters): the
      // 255 bound applies to the stored, lowercased address (never a 500).
      { email: `${'a'.repeat(64)}@${'İ'.repeat(60)}.${'İ'.repeat(60)}.com`, role: 'developer' },
      [],
    ]
    for (const body of bodies) {
      await clearLimits()
      const response =
        typeof body === 'string'
          ? await client
              .post(route('team.invitations.store'))
              .header('Authorization', team.bearer)
              .unsafeJson(body)
          : await invite(client, team.bearer, body)
      assert.equal(response.status(), 422, JSON.stringify(body))
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    }
    assert.lengthOf(await TeamInvitation.all(), 0)

    // The body parser drops `__proto__` and `constructor.prototype` keys: never a 500,
    // never a polluted prototype.
    for (const raw of [
      '{"email":"p@example.test","role":"developer","__proto__":{"polluted":1}}',
      '{"email":"q@example.test","role":"developer","constructor":{"prototype":{"polluted":1}}}',
    ]) {
      await clearLimits()
      const proto = await client
        .post(route('team.invitations.store'))
        .header('Authorization', team.bearer)
        .unsafeJson(raw)
      assert.isBelow(proto.status(), 500)
      assert.isUndefined(({} as any).polluted)
    }
  })

  test('409 MEMBER_ALREADY_EXISTS for a member of this merchant, active or not, whatever the case of the email', async ({
    client,
  }) => {
    const team = await signedInMember('administrator')
    const inactive = await teammate(team, 'developer', { isActive: false })
    for (const email of [team.user.email.toUpperCase(), inactive.user.email]) {
      const response = await invite(client, team.bearer, { email, role: 'developer' })
      response.assertStatus(409)
      response.assertBodyContains({ error_code: 'MEMBER_ALREADY_EXISTS' })
    }
  })

  test('409 USER_BELONGS_TO_ANOTHER_MERCHANT for a member of another merchant', async ({
    client,
  }) => {
    const team = await signedInMember('administrator')
    const { user } = await createMerchantWithUser({ role: 'developer' })
    const response = await invite(client, team.bearer, { email: user.email, role: 'developer' })
    response.assertStatus(409)
    response.assertBodyContains({ error_code: 'USER_BELONGS_TO_ANOTHER_MERCHANT' })
  })

  test('409 USER_NOT_ELIGIBLE for an internal account and USER_IDENTITY_CONFLICT for an email used as another username', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const internal = await UserFactory.merge({ merchantId: null, role: 99 }).create()
    const internalResponse = await invite(client, team.bearer, {
      email: internal.email,
      role: 'developer',
    })
    internalResponse.assertStatus(409)
    internalResponse.assertBodyContains({ error_code: 'USER_NOT_ELIGIBLE' })

    await UserFactory.merge({
      merchantId: null,
      username: 'taken@example.test',
      email: 'other@example.test',
    }).create()
    const collision = await invite(client, team.bearer, {
      email: 'taken@example.test',
      role: 'developer',
    })
    collision.assertStatus(409)
    collision.assertBodyContains({ error_code: 'USER_IDENTITY_CONFLICT' })
    assert.lengthOf(await TeamInvitation.all(), 0)
  })

  test('409 INVITATION_ALREADY_PENDING while a pending invitation exists for the email; an expired one does not block', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    await createInvitation(team.merchant, team.user, { email: 'pending@example.test' })
    const pending = await invite(client, team.bearer, {
      email: 'PENDING@example.test',
      role: 'administrator',
    })
    pending.assertStatus(409)
    pending.assertBodyContains({ error_code: 'INVITATION_ALREADY_PENDING' })

    await createInvitation(team.merchant, team.user, {
      email: 'expired@example.test',
      expiresAt: DateTime.now().minus({ minutes: 1 }),
    })
    const afterExpiry = await invite(client, team.bearer, {
      email: 'expired@example.test',
      role: 'developer',
    })
    afterExpiry.assertStatus(201)

    // Another merchant's pending invitation for the same email does not block.
    const other = await signedInMember('administrator')
    await createInvitation(other.merchant, other.user, { email: 'shared@example.test' })
    const shared = await invite(client, team.bearer, {
      email: 'shared@example.test',
      role: 'developer',
    })
    shared.assertStatus(201)
    assert.lengthOf(await TeamInvitation.query().where('email', 'shared@example.test'), 2)
  })

  test('two simultaneous invitations for one email: exactly one is created', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const responses = await Promise.all(
      [1, 2, 3].map(() =>
        invite(client, team.bearer, { email: 'race@example.test', role: 'developer' })
      )
    )
    assert.deepEqual(responses.map((response) => response.status()).sort(), [201, 409, 409])
    assert.lengthOf(await TeamInvitation.query().where('email', 'race@example.test'), 1)
  })

  test('a mail transport failure keeps the invitation pending and answers sent: false with a message to resend', async ({
    client,
    assert,
  }) => {
    const mailer = fakeMail()
    mailer.send = async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:1025')
    }
    const team = await signedInMember('administrator')
    const response = await invite(client, team.bearer, {
      email: 'offline@example.test',
      role: 'developer',
    })
    response.assertStatus(201)
    assert.isFalse(response.body().data.sent)
    assert.equal(response.body().data.status, 'pending')
    assert.match(response.body().message, /resend/i)
    const stored = await TeamInvitation.findOrFail(response.body().data.id)
    assert.equal(stored.status, 'pending')
  })

  test('a missing or invalid PORTAL_URL is 503 SERVICE_UNAVAILABLE before anything is written', async ({
    client,
    assert,
  }) => {
    const mailer = fakeMail()
    const team = await signedInMember('administrator')
    for (const value of [
      undefined,
      '',
      'not a url',
      'ftp://portal.example.test',
      'https://user:pw@portal.example.test',
      'https://portal.example.test:8443/some/path/',
    ]) {
      const restore = setEnv('PORTAL_URL', value)
      try {
        await clearLimits()
        const response = await invite(client, team.bearer, {
          email: 'someone@example.test',
          role: 'developer',
        })
        assert.equal(response.status(), 503, String(value))
        assert.equal(response.body().error_code, 'SERVICE_UNAVAILABLE')
      } finally {
        restore()
      }
    }
    assert.lengthOf(await TeamInvitation.all(), 0)
    assert.lengthOf(mailer.mails.sent(), 0)
  })
})

test.group('GET /portal/team/invitations', (group) => {
  group.each.setup(() => resetState())

  test('a developer gets 403 FORBIDDEN', async ({ client }) => {
    const team = await signedInMember('administrator')
    const developer = await teammate(team, 'developer')
    const response = await listInvitations(client, developer.bearer)
    response.assertStatus(403)
    response.assertBodyContains({ error_code: 'FORBIDDEN' })
  })

  test('lists this merchant invitations newest first then by UUID, with the seven fields and derived status', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const base = DateTime.fromISO('2026-02-01T00:00:00.000Z')
    const { invitation: oldest } = await createInvitation(team.merchant, team.user, {
      createdAt: base,
      expiresAt: base.plus({ hours: 48 }), // long past: expired
    })
    const sameTimeA = await createInvitation(team.merchant, team.user, {
      id: '00000000-0000-4000-8000-000000000001',
      createdAt: base.plus({ days: 1 }),
      status: 'accepted',
    })
    const sameTimeB = await createInvitation(team.merchant, team.user, {
      id: 'ffffffff-0000-4000-8000-000000000001',
      createdAt: base.plus({ days: 1 }),
      status: 'revoked',
    })
    const { invitation: newest } = await createInvitation(team.merchant, team.user, {
      role: ROLES.administrator,
    })
    const other = await signedInMember('administrator')
    await createInvitation(other.merchant, other.user)

    const response = await listInvitations(client, team.bearer)
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store, private')
    const body = response.body()
    assert.deepEqual(
      body.data.map((item: { id: string }) => item.id),
      [newest.id, sameTimeB.invitation.id, sameTimeA.invitation.id, oldest.id]
    )
    assert.deepEqual(
      body.data.map((item: { status: string }) => item.status),
      ['pending', 'revoked', 'accepted', 'expired']
    )
    for (const item of body.data) assert.deepEqual(Object.keys(item).sort(), INVITATION_FIELDS)
    assert.deepEqual(body.data[0], {
      id: newest.id,
      email: newest.email,
      role: 'administrator',
      status: 'pending',
      invited_by: team.user.id,
      created_at: newest.createdAt.toUTC().toISO(),
      expires_at: newest.expiresAt.toUTC().toISO(),
    })
    assert.deepEqual(body.meta, { current_page: 1, per_page: 25, total: 4, last_page: 1 })
  })

  test('filters by status; expired means pending past expiry; extra query fields are ignored', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const { invitation: pending } = await createInvitation(team.merchant, team.user)
    const { invitation: expired } = await createInvitation(team.merchant, team.user, {
      expiresAt: DateTime.now().minus({ seconds: 1 }),
    })
    const { invitation: accepted } = await createInvitation(team.merchant, team.user, {
      status: 'accepted',
    })
    const { invitation: revoked } = await createInvitation(team.merchant, team.user, {
      status: 'revoked',
    })
    const expected = { pending, expired, accepted, revoked }
    for (const [status, invitation] of Object.entries(expected)) {
      const response = await client
        .get(route('team.invitations.index'))
        .qs({ status, email: 'ignored', sort: 'asc' })
        .header('Authorization', team.bearer)
      response.assertStatus(200)
      assert.deepEqual(
        response.body().data.map((item: { id: string; status: string }) => [item.id, item.status]),
        [[invitation.id, status]]
      )
      assert.equal(response.body().meta.total, 1)
    }
  })

  test('a pending invitation is reported expired once its 48 hours have passed', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00.000Z')
    const team = await signedInMember('administrator')
    await createInvitation(team.merchant, team.user)
    setNow('2026-03-03T09:59:00.000Z')
    const bearer = `Bearer ${await issuePat(team.user, team.client)}`
    const before = await listInvitations(client, bearer)
    assert.equal(before.body().data[0].status, 'pending')
    setNow('2026-03-03T10:00:00.000Z')
    const after = await listInvitations(client, bearer)
    assert.equal(after.body().data[0].status, 'expired')
  })

  test('invalid status or pagination is 422', async ({ client }) => {
    const team = await signedInMember('administrator')
    for (const qs of [
      { status: '' },
      { status: 'Pending' },
      { status: 'gone' },
      { per_page: 0 },
      { page: -1 },
    ]) {
      const response = await client
        .get(route('team.invitations.index'))
        .qs(qs)
        .header('Authorization', team.bearer)
      response.assertStatus(422)
    }
    const repeated = await client
      .get(`${route('team.invitations.index')}?status=pending&status=revoked`)
      .header('Authorization', team.bearer)
    repeated.assertStatus(422)
  })
})

test.group('POST /portal/team/invitations/{invitation}/resend', (group) => {
  group.each.setup(() => invitationMailSetup())

  test('issues a new proof, resets attempts and expiry; the old proof is then unknown (404)', async ({
    client,
    assert,
  }) => {
    setNow('2026-03-01T10:00:00.000Z')
    const mailer = fakeMail()
    const team = await signedInMember('administrator')
    const { invitation, proof: oldProof } = await createInvitation(team.merchant, team.user, {
      failedAttempts: 7,
    })
    setNow('2026-03-02T10:00:00.000Z')
    const { pat } = await teammate(team, 'administrator')
    const response = await resend(client, `Bearer ${pat}`, invitation.id)
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store, private')
    assert.equal(response.body().message, 'Invitation sent.')
    assert.deepInclude(response.body().data, {
      id: invitation.id,
      status: 'pending',
      expires_at: '2026-03-04T10:00:00.000Z',
      created_at: '2026-03-01T10:00:00.000Z',
      sent: true,
    })
    const newProof = proofOf(mailer.mails.sent()[0] as InvitationMail)!
    assert.notEqual(newProof, oldProof)
    await invitation.refresh()
    assert.equal(invitation.failedAttempts, 0)
    assert.equal(invitation.tokenHash, sha256(newProof))

    const old = await client
      .post(route('team.invitations.accept'))
      .headers(appHeaders(team.client))
      .json({ token: oldProof, current_password: 'whatever-it-is' })
    old.assertStatus(404)
  })

  test('an expired pending invitation can be resent and becomes pending again', async ({
    client,
    assert,
  }) => {
    fakeMail()
    const team = await signedInMember('administrator')
    const { invitation } = await createInvitation(team.merchant, team.user, {
      expiresAt: DateTime.now().minus({ hours: 1 }),
    })
    const response = await resend(client, team.bearer, invitation.id)
    response.assertStatus(200)
    assert.equal(response.body().data.status, 'pending')
  })

  test('accepted or revoked invitations are 410 INVITATION_UNAVAILABLE and unchanged', async ({
    client,
    assert,
  }) => {
    const mailer = fakeMail()
    const team = await signedInMember('administrator')
    for (const status of ['accepted', 'revoked'] as const) {
      const { invitation } = await createInvitation(team.merchant, team.user, { status })
      const response = await resend(client, team.bearer, invitation.id)
      response.assertStatus(410)
      response.assertBodyContains({ error_code: 'INVITATION_UNAVAILABLE' })
      const hashBefore = invitation.tokenHash
      await invitation.refresh()
      assert.equal(invitation.status, status)
      assert.equal(invitation.tokenHash, hashBefore)
    }
    assert.lengthOf(mailer.mails.sent(), 0)
  })

  test('409 INVITATION_ALREADY_PENDING when another pending invitation exists for the same email', async ({
    client,
  }) => {
    fakeMail()
    const team = await signedInMember('administrator')
    const { invitation: expired } = await createInvitation(team.merchant, team.user, {
      email: 'twice@example.test',
      expiresAt: DateTime.now().minus({ hours: 1 }),
    })
    await createInvitation(team.merchant, team.user, { email: 'twice@example.test' })
    const response = await resend(client, team.bearer, expired.id)
    response.assertStatus(409)
    response.assertBodyContains({ error_code: 'INVITATION_ALREADY_PENDING' })
  })

  test('unknown, foreign or malformed ids are 404; a body is 422; a developer is 403', async ({
    client,
  }) => {
    fakeMail()
    const team = await signedInMember('administrator')
    const other = await signedInMember('administrator')
    const { invitation: foreign } = await createInvitation(other.merchant, other.user)
    for (const id of [foreign.id, '6f1c2a8e-1111-4222-8333-444455556666', 'not-a-uuid']) {
      const response = await resend(client, team.bearer, id)
      response.assertStatus(404)
    }
    const { invitation } = await createInvitation(team.merchant, team.user)
    const withBody = await resend(client, team.bearer, invitation.id).json({
      email: 'x@example.test',
    })
    withBody.assertStatus(422)
    const developer = await teammate(team, 'developer')
    const forbidden = await resend(client, developer.bearer, invitation.id)
    forbidden.assertStatus(403)
  })

  test('a mail transport failure on resend answers sent: false and keeps the new proof pending', async ({
    client,
    assert,
  }) => {
    const mailer = fakeMail()
    mailer.send = async () => {
      throw new Error('smtp down')
    }
    const team = await signedInMember('administrator')
    const { invitation } = await createInvitation(team.merchant, team.user)
    const response = await resend(client, team.bearer, invitation.id)
    response.assertStatus(200)
    assert.isFalse(response.body().data.sent)
    assert.match(response.body().message, /resend/i)
  })
})

test.group('DELETE /portal/team/invitations/{invitation}', (group) => {
  group.each.setup(() => resetState())

  test('revokes a pending invitation (204), repeat-safe, history preserved; its proof is then 410', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const { invitation, proof } = await createInvitation(team.merchant, team.user)
    const first = await revoke(client, team.bearer, invitation.id)
    first.assertStatus(204)
    assert.equal(first.text(), '')
    const again = await revoke(client, team.bearer, invitation.id)
    again.assertStatus(204)
    await invitation.refresh()
    assert.equal(invitation.status, 'revoked')
    assert.isNotNull(invitation.revokedAt)
    assert.lengthOf(
      await AuditLog.query().where('action', 'team.invitation.revoke').where('outcome', 'success'),
      1
    )
    const accept = await client
      .post(route('team.invitations.accept'))
      .headers(appHeaders(team.client))
      .json({ token: proof, first_name: 'A', last_name: 'B' })
    accept.assertStatus(410)
    accept.assertBodyContains({ error_code: 'INVITATION_UNAVAILABLE' })
  })

  test('an expired pending invitation can be revoked', async ({ client, assert }) => {
    const team = await signedInMember('administrator')
    const { invitation } = await createInvitation(team.merchant, team.user, {
      expiresAt: DateTime.now().minus({ hours: 1 }),
    })
    const response = await revoke(client, team.bearer, invitation.id)
    response.assertStatus(204)
    await invitation.refresh()
    assert.equal(invitation.status, 'revoked')
  })

  test('an accepted invitation is 410 INVITATION_UNAVAILABLE', async ({ client, assert }) => {
    const team = await signedInMember('administrator')
    const { invitation } = await createInvitation(team.merchant, team.user, { status: 'accepted' })
    const response = await revoke(client, team.bearer, invitation.id)
    response.assertStatus(410)
    response.assertBodyContains({ error_code: 'INVITATION_UNAVAILABLE' })
    await invitation.refresh()
    assert.equal(invitation.status, 'accepted')
  })

  test('foreign or unknown ids are 404, a body is 422, a developer is 403', async ({ client }) => {
    const team = await signedInMember('administrator')
    const other = await signedInMember('administrator')
    const { invitation: foreign } = await createInvitation(other.merchant, other.user)
    const unknown = await revoke(client, team.bearer, foreign.id)
    unknown.assertStatus(404)
    const { invitation } = await createInvitation(team.merchant, team.user)
    const withBody = await revoke(client, team.bearer, invitation.id).json({ reason: 'x' })
    withBody.assertStatus(422)
    const developer = await teammate(team, 'developer')
    const forbidden = await revoke(client, developer.bearer, invitation.id)
    forbidden.assertStatus(403)
  })
})

test.group('Invitation limits', (group) => {
  group.each.setup(() => invitationMailSetup())

  test('create, resend and revoke share 5 per minute per administrator and merchant; the sixth is 429 and audited', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const { invitation } = await createInvitation(team.merchant, team.user)
    const calls = [
      () => invite(client, team.bearer, { email: 'l1@example.test', role: 'developer' }),
      () => invite(client, team.bearer, { email: 'bad' }),
      () => resend(client, team.bearer, invitation.id),
      () => revoke(client, team.bearer, invitation.id),
      () => invite(client, team.bearer, { email: 'l2@example.test', role: 'developer' }),
    ]
    for (const call of calls) {
      const response = await call()
      assert.notEqual(response.status(), 429)
    }
    const throttled = await invite(client, team.bearer, {
      email: 'l3@example.test',
      role: 'developer',
    })
    throttled.assertStatus(429)
    throttled.assertBodyContains({ error_code: 'RATE_LIMITED' })
    assert.match(throttled.header('retry-after') ?? '', /^[1-9][0-9]*$/)
    assert.lengthOf(await AuditLog.query().where('outcome', 'throttled'), 1)

    // Another administrator of the same merchant has a bucket of its own.
    const other = await teammate(team, 'administrator')
    const allowed = await invite(client, other.bearer, {
      email: 'l4@example.test',
      role: 'developer',
    })
    allowed.assertStatus(201)
  })
})

test.group('Invitation mutations under concurrency', (group) => {
  group.each.setup(() => invitationMailSetup())

  test('an administrator demoted or removed while the request waits for the team lock is refused (403 FORBIDDEN), nothing written', async ({
    client,
    assert,
  }) => {
    const changes: Array<Record<string, unknown>> = [
      { role: ROLES.developer },
      { merchant_id: null, is_active: false },
      { is_active: false },
    ]
    for (const change of changes) {
      await resetState()
      const team = await signedInMember('administrator')
      const other = await teammate(team, 'administrator')
      const { invitation } = await createInvitation(team.merchant, team.user)
      const before = await TeamInvitation.findOrFail(invitation.id)
      const demote = async (trx: TransactionClientContract) => {
        await trx.from('users').where('id', other.user.id).update(change)
      }
      const calls = [
        () => invite(client, other.bearer, { email: 'late@example.test', role: 'developer' }),
        () => resend(client, other.bearer, invitation.id),
        () => revoke(client, other.bearer, invitation.id),
      ]
      for (const call of calls) {
        await db.from('users').where('id', other.user.id).update({
          role: ROLES.administrator,
          merchant_id: team.merchant.id,
          is_active: true,
        })
        const response = await whileTeamLocked(team.merchant.id, call, demote)
        assert.equal(response.status(), 403, JSON.stringify(change))
        assert.equal(response.body().error_code, 'FORBIDDEN')
      }
      assert.lengthOf(await TeamInvitation.all(), 1)
      const after = await TeamInvitation.findOrFail(invitation.id)
      assert.deepEqual(
        [after.status, after.tokenHash, after.invitedBy, after.expiresAt.toMillis()],
        [before.status, before.tokenHash, before.invitedBy, before.expiresAt.toMillis()]
      )
      assert.lengthOf(await AuditLog.query().where('outcome', 'success'), 0)
    }
  })
})
