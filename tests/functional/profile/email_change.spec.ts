import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import { realLimits } from '#tests/helpers/limits'
import type { FakeMailer } from '@adonisjs/mail'
import { resetState, setNow, advanceClock } from '#tests/helpers/database'
import { createMerchantWithUser, signedInMember } from '#tests/helpers/portal'
import {
  lastVerificationMail,
  pathOf,
  profileTestSetup,
  sentVerificationMails,
  startEmailChange,
  wrongOtp,
} from '#tests/helpers/profile'
import { setEnv } from '#tests/helpers/env'
import User from '#models/user'
import { keyedHash } from '#support/one_time_proof'
import { route } from '#tests/helpers/routes'
import { appUrl } from '#config/app'
import { getProfile } from '#tests/helpers/requests'

let fake: FakeMailer
let restore: () => Promise<void>

function verify(client: ApiClient, bearer: string, body: unknown) {
  return client.post(route('profile.email.verify')).header('Authorization', bearer).json(body)
}

function resend(client: ApiClient, bearer: string, body?: unknown) {
  const request = client.post(route('profile.email.resend')).header('Authorization', bearer)
  return body === undefined ? request : request.json(body)
}

test.group('Email change › OTP verification', (group) => {
  group.each.setup(async () => {
    await resetState()
    ;({ fake, restore } = profileTestSetup())
    return () => restore()
  })

  test('mails the OTP and the signed link to the NEW address only, in a text and an HTML part', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    const { otp, link, mail } = await startEmailChange(client, fake, bearer, 'next@example.test')
    assert.match(otp, /^[0-9]{6}$/)
    assert.lengthOf(sentVerificationMails(fake), 1)
    const message = mail.message.toJSON().message
    assert.deepEqual(message.to, ['next@example.test'])
    for (const part of [String(message.text), String(message.html)]) {
      assert.include(part, otp)
      assert.notInclude(part, user.email)
    }
    assert.include(String(message.text), link)
    assert.include(String(message.html), link.replace(/&/g, '&amp;'))
    assert.isTrue(link.startsWith(`${appUrl}/`), link)
    assert.match(
      link.slice(appUrl.length),
      /^\/portal\/profile\/email\/verify\/[0-9a-f-]{36}\?proof=[0-9a-f]{64}&expires=[0-9]+&signature=/
    )
  })

  test('the correct OTP swaps the email atomically, sets email_verified_at and keeps every PAT', async ({
    client,
    assert,
  }) => {
    setNow('2030-05-01T10:00:00Z')
    const { bearer, user, merchant } = await signedInMember()
    const { otp } = await startEmailChange(client, fake, bearer, 'next@example.test')
    advanceClock(14 * 60 * 1000)
    const response = await verify(client, bearer, { otp })
    response.assertStatus(200)
    const body = response.body()
    assert.equal(body.message, 'Email verified.')
    assert.equal(body.data.email, 'next@example.test')
    assert.equal(body.data.username, user.username)
    assert.isNull(body.data.pending_email)
    assert.isNull(body.data.pending_email_expires_at)
    assert.equal(body.data.email_verified_at, '2030-05-01T10:14:00.000Z')
    assert.deepEqual(body.data.merchant, {
      id: merchant.id,
      reference_id: merchant.referenceId,
      name: merchant.name,
    })
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.email, 'next@example.test')
    assert.equal(stored.username, user.username)
    assert.isNull(stored.pendingEmailOtpHash)
    const still = await getProfile(client, bearer)
    still.assertStatus(200)
    assert.equal(still.body().data.email, 'next@example.test')
    const again = await verify(client, bearer, { otp })
    again.assertStatus(422)
  })

  test('leading zeros are kept: "000123" is not 123', async ({ client, assert }) => {
    const { bearer, user } = await signedInMember()
    await startEmailChange(client, fake, bearer, 'next@example.test')
    const stored = await User.findOrFail(user.id)
    stored.pendingEmailOtpHash = keyedHash(
      `email-change-otp:${stored.pendingEmailVerificationId}`,
      '000123'
    )
    await stored.save()
    for (const otp of [123, '123', '00123', 'O00123']) {
      const response = await verify(client, bearer, { otp })
      assert.equal(response.status(), 422, String(otp))
    }
    const ok = await verify(client, bearer, { otp: '000123' })
    ok.assertStatus(200)
  })

  test('otp must be a string of six digits; numbers and unlisted fields are 422 and not counted', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    const { otp } = await startEmailChange(client, fake, bearer, 'next@example.test')
    const invalid: unknown[] = [
      { otp: Number(otp) },
      { otp: null },
      {},
      { otp: '12345' },
      { otp: '1234567' },
      { otp: '12 456' },
      { otp: '١٢٣٤٥٦' },
      { otp: [otp] },
      { otp: { value: otp } },
      { otp, user_id: 1 },
      { otp: 'x'.repeat(10_000) },
    ]
    for (const body of invalid) {
      const response = await verify(client, bearer, body)
      assert.equal(response.status(), 422, JSON.stringify(body).slice(0, 40))
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    }
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.pendingEmailFailedAttempts, 0)
    const ok = await verify(client, bearer, { otp: ` ${otp} ` })
    ok.assertStatus(200)
  })

  test('a wrong OTP is 422 and counted; after five wrong the change is blocked with 429 until resend', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    const { otp } = await startEmailChange(client, fake, bearer, 'next@example.test')
    for (let i = 1; i <= 5; i++) {
      const response = await verify(client, bearer, { otp: wrongOtp(otp) })
      response.assertStatus(422)
      assert.property(response.body().errors, 'otp')
    }
    const blocked = await verify(client, bearer, { otp })
    blocked.assertStatus(429)
    blocked.assertBodyContains({ error_code: 'RATE_LIMITED' })
    assert.match(blocked.header('retry-after') ?? '', /^[1-9][0-9]*$/)
    const reloaded = await User.findOrFail(user.id)
    assert.equal(reloaded.email, user.email)

    const resent = await resend(client, bearer)
    resent.assertStatus(200)
    assert.deepEqual(resent.body(), { success: true, message: resent.body().message, data: null })
    const newOtp = lastVerificationMail(fake).otp
    if (newOtp !== otp) {
      const old = await verify(client, bearer, { otp })
      old.assertStatus(422)
    }
    const ok = await verify(client, bearer, { otp: newOtp })
    ok.assertStatus(200)
  })

  test('racing wrong OTPs are counted exactly: five 422 and the rest 429', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    const { otp } = await startEmailChange(client, fake, bearer, 'next@example.test')
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => verify(client, bearer, { otp: wrongOtp(otp) }))
    )
    const statuses = responses.map((response) => response.status()).sort()
    assert.deepEqual(statuses, [422, 422, 422, 422, 422, 429, 429, 429])
    const reloaded = await User.findOrFail(user.id)
    assert.equal(reloaded.pendingEmailFailedAttempts, 5)
  })

  test('racing correct OTPs verify exactly once', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    const { otp } = await startEmailChange(client, fake, bearer, 'next@example.test')
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => verify(client, bearer, { otp }))
    )
    const statuses = responses.map((response) => response.status()).sort()
    assert.deepEqual(statuses, [200, 422, 422, 422])
  })

  test('the OTP expires after 15 minutes', async ({ client, assert }) => {
    setNow('2030-05-01T10:00:00Z')
    const { bearer, user } = await signedInMember()
    const { otp } = await startEmailChange(client, fake, bearer, 'next@example.test')
    advanceClock(15 * 60 * 1000)
    const response = await verify(client, bearer, { otp })
    response.assertStatus(422)
    assert.property(response.body().errors, 'otp')
    const reloaded = await User.findOrFail(user.id)
    assert.equal(reloaded.email, user.email)
    const profile = await getProfile(client, bearer)
    assert.isNull(profile.body().data.pending_email)
  })

  test('without a pending change the verification is 422', async ({ client }) => {
    const { bearer } = await signedInMember()
    const response = await verify(client, bearer, { otp: '123456' })
    response.assertStatus(422)
  })

  test('a replacement address invalidates the earlier code and link', async ({
    client,
    assert,
  }) => {
    const { bearer } = await signedInMember()
    const first = await startEmailChange(client, fake, bearer, 'first@example.test')
    const second = await startEmailChange(client, fake, bearer, 'second@example.test')
    assert.equal(second.response.body().data.pending_email, 'second@example.test')
    if (first.otp !== second.otp) {
      const stale = await verify(client, bearer, { otp: first.otp })
      stale.assertStatus(422)
    }
    const staleLink = await client.get(pathOf(first.link)).redirects(0)
    staleLink.assertStatus(302)
    assert.equal(
      staleLink.header('location'),
      'https://portal.example.test/?email_verification=invalid'
    )
    const ok = await verify(client, bearer, { otp: second.otp })
    ok.assertStatus(200)
    assert.equal(ok.body().data.email, 'second@example.test')
  })

  test('PATCHing the current email cancels the pending change', async ({ client, assert }) => {
    const { bearer, user } = await signedInMember()
    const { otp } = await startEmailChange(client, fake, bearer, 'next@example.test')
    const cancel = await client
      .patch(route('profile.update'))
      .header('Authorization', bearer)
      .json({ email: ` ${user.email.toUpperCase()} ` })
    cancel.assertStatus(200)
    assert.isNull(cancel.body().data.pending_email)
    assert.lengthOf(sentVerificationMails(fake), 1)
    const response = await verify(client, bearer, { otp })
    response.assertStatus(422)
    const resent = await resend(client, bearer)
    resent.assertStatus(422)
  })

  test('a names-only PATCH preserves the pending change', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    const { otp, response: started } = await startEmailChange(
      client,
      fake,
      bearer,
      'next@example.test'
    )
    const names = await client
      .patch(route('profile.update'))
      .header('Authorization', bearer)
      .json({ first_name: 'Renamed' })
    names.assertStatus(200)
    assert.equal(names.body().data.pending_email, 'next@example.test')
    assert.equal(
      names.body().data.pending_email_expires_at,
      started.body().data.pending_email_expires_at
    )
    const ok = await verify(client, bearer, { otp })
    ok.assertStatus(200)
    assert.equal(ok.body().data.first_name, 'Renamed')
  })

  test('uniqueness is rechecked at verification', async ({ client, assert }) => {
    const { bearer, user } = await signedInMember()
    const { otp } = await startEmailChange(client, fake, bearer, 'next@example.test')
    const { user: other } = await createMerchantWithUser()
    other.email = 'Next@example.test'
    await other.save()
    const response = await verify(client, bearer, { otp })
    response.assertStatus(422)
    const reloaded = await User.findOrFail(user.id)
    assert.equal(reloaded.email, user.email)
  })

  test('OTP verification is limited to 10 per minute per user', async ({ client }) => {
    realLimits()
    const { bearer } = await signedInMember()
    for (let i = 0; i < 10; i++) {
      const response = await verify(client, bearer, { otp: 'bad' })
      response.assertStatus(422)
    }
    const limited = await verify(client, bearer, { otp: 'bad' })
    limited.assertStatus(429)
  })
})

test.group('Email change › resend', (group) => {
  group.each.setup(async () => {
    await resetState()
    ;({ fake, restore } = profileTestSetup())
    return () => restore()
  })

  test('issues a new OTP, resets the counter, restarts the expiry and invalidates the previous link', async ({
    client,
    assert,
  }) => {
    setNow('2030-05-01T10:00:00Z')
    const { bearer, user } = await signedInMember()
    const first = await startEmailChange(client, fake, bearer, 'next@example.test')
    await verify(client, bearer, { otp: wrongOtp(first.otp) })
    advanceClock(10 * 60 * 1000)
    const response = await resend(client, bearer)
    response.assertStatus(200)
    assert.isNull(response.body().data)
    const mails = sentVerificationMails(fake)
    assert.lengthOf(mails, 2)
    assert.equal(mails[1].recipient, 'next@example.test')
    assert.notEqual(mails[1].verificationLink, first.link)
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.pendingEmailFailedAttempts, 0)
    assert.equal(stored.pendingEmailExpiresAt!.toUTC().toISO(), '2030-05-01T10:25:00.000Z')
    const profile = await getProfile(client, bearer)
    assert.equal(profile.body().data.pending_email_expires_at, '2030-05-01T10:25:00.000Z')
    const oldLink = await client.get(pathOf(first.link)).redirects(0)
    oldLink.assertStatus(302)
    assert.equal(
      oldLink.header('location'),
      'https://portal.example.test/?email_verification=invalid'
    )
    advanceClock(14 * 60 * 1000)
    const ok = await verify(client, bearer, { otp: mails[1].otp })
    ok.assertStatus(200)
  })

  test('takes no body: any field is 422', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    await startEmailChange(client, fake, bearer, 'next@example.test')
    const response = await resend(client, bearer, { email: 'other@example.test' })
    response.assertStatus(422)
    assert.property(response.body().errors, 'email')
    assert.lengthOf(sentVerificationMails(fake), 1)
    const empty = await resend(client, bearer, {})
    empty.assertStatus(200)
  })

  test('needs a live pending change', async ({ client }) => {
    setNow('2030-05-01T10:00:00Z')
    const { bearer } = await signedInMember()
    const none = await resend(client, bearer)
    none.assertStatus(422)
    await startEmailChange(client, fake, bearer, 'next@example.test')
    advanceClock(15 * 60 * 1000)
    const expired = await resend(client, bearer)
    expired.assertStatus(422)
  })

  test('needs the replacement to be still available', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    await startEmailChange(client, fake, bearer, 'next@example.test')
    const { user: other } = await createMerchantWithUser()
    other.username = 'next@example.test'
    await other.save()
    const response = await resend(client, bearer)
    response.assertStatus(422)
    assert.lengthOf(sentVerificationMails(fake), 1)
  })

  test('is 503 when PORTAL_URL is unusable', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    await startEmailChange(client, fake, bearer, 'next@example.test')
    const restorePortal = setEnv('PORTAL_URL', 'portal.example.test')
    try {
      const response = await resend(client, bearer)
      response.assertStatus(503)
      response.assertBodyContains({ error_code: 'SERVICE_UNAVAILABLE' })
    } finally {
      restorePortal()
    }
    assert.lengthOf(sentVerificationMails(fake), 1)
  })

  test('is limited to 3 per minute per user', async ({ client }) => {
    realLimits()
    const { bearer } = await signedInMember()
    await startEmailChange(client, fake, bearer, 'next@example.test')
    for (let i = 0; i < 3; i++) {
      const response = await resend(client, bearer)
      response.assertStatus(200)
    }
    const limited = await resend(client, bearer)
    limited.assertStatus(429)
    limited.assertBodyContains({ error_code: 'RATE_LIMITED' })
  })
})
