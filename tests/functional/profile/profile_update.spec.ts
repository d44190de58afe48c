import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import { realLimits } from '#tests/helpers/limits'
import type { FakeMailer } from '@adonisjs/mail'
import { resetState, setNow, advanceClock } from '#tests/helpers/database'
import { createMerchantWithUser, signedInMember } from '#tests/helpers/portal'
import { profileTestSetup, sentVerificationMails, startEmailChange } from '#tests/helpers/profile'
import { setEnv } from '#tests/helpers/env'
import User from '#models/user'
import AuditLog from '#models/audit_log'
import EmailVerificationMail from '#mails/email_verification_mail'
import { route } from '#tests/helpers/routes'
import { getProfile } from '#tests/helpers/requests'

let fake: FakeMailer
let restore: () => Promise<void>

function patch(client: ApiClient, bearer: string, body: unknown) {
  return client.patch(route('profile.update')).header('Authorization', bearer).json(body)
}

test.group('PATCH /portal/me', (group) => {
  group.each.setup(async () => {
    await resetState()
    ;({ fake, restore } = profileTestSetup())
    return () => restore()
  })

  test('updates names, trimmed, and returns the profile', async ({ client, assert }) => {
    const { bearer, user, merchant } = await signedInMember('developer')
    const response = await patch(client, bearer, {
      first_name: '  Ada ',
      last_name: '\tLovelace  ',
    })
    response.assertStatus(200)
    const body = response.body()
    assert.equal(body.message, 'Profile updated.')
    assert.deepEqual(body.data, {
      id: user.id,
      reference_id: user.referenceId,
      first_name: 'Ada',
      last_name: 'Lovelace',
      username: user.username,
      email: user.email,
      pending_email: null,
      pending_email_expires_at: null,
      email_verified_at: null,
      role: 'developer',
      is_active: true,
      merchant: { id: merchant.id, reference_id: merchant.referenceId, name: merchant.name },
    })
    response.assertHeader('cache-control', 'no-store')
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.firstName, 'Ada')
    assert.equal(stored.lastName, 'Lovelace')
    fake.mails.assertNoneSent()
  })

  test('names are 1-50 characters after trimming', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    for (const value of ['', '   ', 'x'.repeat(51), 'a\nb']) {
      const response = await patch(client, bearer, { first_name: value })
      assert.equal(response.status(), 422, JSON.stringify(value))
      assert.property(response.body().errors, 'first_name')
    }
    const fifty = await patch(client, bearer, { last_name: ` ${'é'.repeat(50)} ` })
    fifty.assertStatus(200)
    assert.equal(fifty.body().data.last_name, 'é'.repeat(50))
  })

  test('{}, an empty or a null body, and null or empty values are invalid', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    for (const body of [
      {},
      { first_name: null },
      { email: null },
      { last_name: '' },
      { email: '' },
    ]) {
      const response = await patch(client, bearer, body)
      assert.equal(response.status(), 422, JSON.stringify(body))
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    }
    const empty = await client.patch(route('profile.update')).header('Authorization', bearer)
    empty.assertStatus(422)
    const array = await patch(client, bearer, [{ first_name: 'A' }])
    array.assertStatus(422)
    const mixed = await patch(client, bearer, { first_name: 'New', last_name: null })
    mixed.assertStatus(422)
    assert.property(mixed.body().errors, 'last_name')
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.firstName, user.firstName)
  })

  test('rejects role, merchant, activation, verification and any other unlisted field', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember('developer')
    for (const field of [
      'role',
      'merchant_id',
      'merchant',
      'is_active',
      'email_verified_at',
      'pending_email',
      'username',
      'id',
      'user_id',
      'password',
    ]) {
      const response = await patch(client, bearer, { first_name: 'Changed', [field]: 1 })
      assert.equal(response.status(), 422, field)
      assert.property(response.body().errors, field)
    }
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.firstName, user.firstName)
    assert.equal(stored.role, 10)
  })

  test('never answers 500 to hostile values', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    const hostile: unknown[] = [
      1,
      true,
      [],
      {},
      'x'.repeat(100_000 / 4),
      '\u0000',
      '\ud800',
      'new\udc00@example.test',
      '😀'.repeat(60),
      99999999999999999999999,
      { __proto__: { x: 1 } },
    ]
    for (const value of hostile) {
      for (const field of ['first_name', 'last_name', 'email']) {
        const response = await patch(client, bearer, { [field]: value })
        assert.equal(response.status(), 422, `${field}=${JSON.stringify(value)}`)
      }
    }
  })

  test('the email is trimmed and lowercased; the login email stays until verified', async ({
    client,
    assert,
  }) => {
    setNow('2030-05-01T10:00:00Z')
    const { bearer, user } = await signedInMember()
    const response = await patch(client, bearer, { email: '  New.Address@Example.TEST ' })
    response.assertStatus(200)
    const data = response.body().data
    assert.equal(data.email, user.email)
    assert.equal(data.pending_email, 'new.address@example.test')
    assert.equal(data.pending_email_expires_at, '2030-05-01T10:15:00.000Z')
    fake.mails.assertSent(
      EmailVerificationMail,
      (sent) => sent.recipient === 'new.address@example.test'
    )
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.email, user.email)
    assert.equal(stored.pendingEmail, 'new.address@example.test')
    assert.match(stored.pendingEmailOtpHash!, /^[0-9a-f]{64}$/)
    assert.notEqual(stored.pendingEmailOtpHash, sentVerificationMails(fake)[0].otp)
  })

  test('the email must be valid and at most 255 characters', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    for (const email of [
      'not-an-email',
      'a@',
      '@example.test',
      `${'a'.repeat(250)}@example.test`,
    ]) {
      const response = await patch(client, bearer, { email })
      assert.equal(response.status(), 422, email)
      assert.property(response.body().errors, 'email')
    }
  })

  test('the 255-character bound applies to the lowercased email (never a 500)', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    // "İ" lowercases to two UTF-16 units: 233 characters as sent, 265 once lowercased.
    const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.test`
    const response = await patch(client, bearer, { email: `${'İ'.repeat(32)}@${domain}` })
    response.assertStatus(422)
    assert.property(response.body().errors, 'email')
    const stored = await User.findOrFail(user.id)
    assert.isNull(stored.pendingEmail)
  })

  test('a duplicate email is 422 on email and leaves the names unchanged', async ({
    client,
    assert,
  }) => {
    const { bearer, user, merchant } = await signedInMember()
    const { user: colleague } = await createMerchantWithUser({ merchant })
    const response = await patch(client, bearer, {
      first_name: 'Changed',
      email: colleague.email.toUpperCase(),
    })
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['email'])
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.firstName, user.firstName)
    assert.isNull(stored.pendingEmail)
    fake.mails.assertNoneSent()
  })

  test('the email must not be another user’s username or live pending email', async ({
    client,
    assert,
  }) => {
    const { bearer } = await signedInMember()
    const other = await createMerchantWithUser()
    other.user.username = 'taken-username@example.test'
    await other.user.save()
    const byUsername = await patch(client, bearer, { email: 'Taken-Username@example.test' })
    byUsername.assertStatus(422)
    assert.property(byUsername.body().errors, 'email')

    const third = await signedInMember()
    await startEmailChange(client, fake, third.bearer, 'wanted@example.test')
    const byPending = await patch(client, bearer, { email: 'wanted@example.test' })
    byPending.assertStatus(422)
    assert.property(byPending.body().errors, 'email')
  })

  test('an expired pending email of another user no longer blocks the address', async ({
    client,
    assert,
  }) => {
    setNow('2030-05-01T10:00:00Z')
    const first = await signedInMember()
    const second = await signedInMember()
    await startEmailChange(client, fake, first.bearer, 'wanted@example.test')
    advanceClock(15 * 60 * 1000)
    const response = await patch(client, second.bearer, { email: 'wanted@example.test' })
    response.assertStatus(200)
    assert.equal(response.body().data.pending_email, 'wanted@example.test')
    const firstProfile = await getProfile(client, first.bearer)
    assert.isNull(firstProfile.body().data.pending_email)
  })

  test('two users racing for the same new email: exactly one gets it pending', async ({
    client,
    assert,
  }) => {
    const members = await Promise.all([signedInMember(), signedInMember(), signedInMember()])
    const responses = await Promise.all(
      members.map(({ bearer }) => patch(client, bearer, { email: 'contested@example.test' }))
    )
    const statuses = responses.map((response) => response.status()).sort()
    assert.deepEqual(statuses, [200, 422, 422])
    const holders = await User.query().where('pending_email', 'contested@example.test')
    assert.lengthOf(holders, 1)
  })

  test('changing to one’s own username is allowed', async ({ client }) => {
    const { bearer, user } = await signedInMember()
    user.username = 'my-login-name@example.test'
    await user.save()
    const response = await patch(client, bearer, { email: 'my-login-name@example.test' })
    response.assertStatus(200)
  })

  test('an email change with PORTAL_URL missing or invalid is 503 and changes nothing', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    for (const value of [undefined, 'https://portal.example.test/path#x']) {
      const restorePortal = setEnv('PORTAL_URL', value)
      try {
        const response = await patch(client, bearer, {
          first_name: 'Changed',
          email: 'new@example.test',
        })
        response.assertStatus(503)
        response.assertBodyContains({ error_code: 'SERVICE_UNAVAILABLE' })
      } finally {
        restorePortal()
      }
    }
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.firstName, user.firstName)
    assert.isNull(stored.pendingEmail)
    fake.mails.assertNoneSent()
  })

  test('profile PATCH is limited to 3 per minute per user; the refusal is audited', async ({
    client,
    assert,
  }) => {
    realLimits()
    const { bearer, user } = await signedInMember()
    const other = await signedInMember()
    for (let i = 0; i < 3; i++) {
      const response = await patch(client, bearer, i === 1 ? {} : { first_name: `N${i}` })
      assert.oneOf(response.status(), [200, 422])
    }
    const limited = await patch(client, bearer, { first_name: 'Late' })
    limited.assertStatus(429)
    limited.assertBodyContains({ error_code: 'RATE_LIMITED' })
    assert.match(limited.header('retry-after') ?? '', /^[1-9][0-9]*$/)
    const otherUser = await patch(client, other.bearer, { first_name: 'Fine' })
    otherUser.assertStatus(200)
    const throttled = await AuditLog.query()
      .where('outcome', 'throttled')
      .where('actor_user_id', user.id)
    assert.lengthOf(throttled, 1)
    assert.equal(throttled[0].action, 'user.profile.update')
  })
})
