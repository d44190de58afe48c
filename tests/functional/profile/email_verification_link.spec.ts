import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import { realLimits } from '#tests/helpers/limits'
import type { FakeMailer } from '@adonisjs/mail'
import { resetState, setNow, advanceClock } from '#tests/helpers/database'
import { createMerchantWithUser, signedInMember } from '#tests/helpers/portal'
import { pathOf, profileTestSetup, startEmailChange, wrongOtp } from '#tests/helpers/profile'
import { setEnv } from '#tests/helpers/env'
import User from '#models/user'
import AuditLog from '#models/audit_log'
import { route } from '#tests/helpers/routes'
import { getProfile } from '#tests/helpers/requests'

let fake: FakeMailer
let restore: () => Promise<void>

const VERIFIED = 'https://portal.example.test/?email_verification=verified'
const INVALID = 'https://portal.example.test/?email_verification=invalid'

function open(client: ApiClient, link: string) {
  return client.get(pathOf(link)).redirects(0)
}

/** Opens the link and returns where it redirects to. */
async function locationOf(client: ApiClient, link: string): Promise<string | undefined> {
  const response = await open(client, link)
  return response.header('location')
}

/** The link with one query value replaced (or removed with null). */
function withQuery(link: string, name: string, value: string | null) {
  const url = new URL(link)
  if (value === null) url.searchParams.delete(name)
  else url.searchParams.set(name, value)
  return url.toString()
}

test.group('GET {web_url}/portal/profile/email/verify/{verification}', (group) => {
  group.each.setup(async () => {
    await resetState()
    ;({ fake, restore } = profileTestSetup())
    return () => restore()
  })

  test('a valid link verifies the email and redirects to the Portal with no secret and safe headers', async ({
    client,
    assert,
  }) => {
    setNow('2030-05-01T10:00:00Z')
    const { bearer, user } = await signedInMember()
    const { link, otp } = await startEmailChange(client, fake, bearer, 'next@example.test')
    const response = await open(client, link)
    response.assertStatus(302)
    const location = response.header('location')
    assert.equal(location, VERIFIED)
    for (const secret of ['next@example.test', user.email, otp, 'signature', 'proof', 'token']) {
      assert.notInclude(location, secret)
    }
    response.assertHeader('cache-control', 'no-store')
    response.assertHeader('referrer-policy', 'no-referrer')
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.email, 'next@example.test')
    assert.equal(stored.emailVerifiedAt!.toUTC().toISO(), '2030-05-01T10:00:00.000Z')
    assert.isNull(stored.pendingEmail)
    const profile = await getProfile(client, bearer)
    profile.assertStatus(200)
  })

  test('a HEAD request (mail scanners) is 405 and does not use the link up', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    const { link } = await startEmailChange(client, fake, bearer, 'next@example.test')
    const head = await client.head(pathOf(link)).redirects(0)
    head.assertStatus(405)
    const stored = await User.findOrFail(user.id)
    assert.equal(stored.pendingEmail, 'next@example.test')
    assert.equal(await locationOf(client, link), VERIFIED)
  })

  test('a consumed link redirects with email_verification=invalid', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    const { link } = await startEmailChange(client, fake, bearer, 'next@example.test')
    assert.equal(await locationOf(client, link), VERIFIED)
    const again = await open(client, link)
    again.assertStatus(302)
    assert.equal(again.header('location'), INVALID)
    again.assertHeader('referrer-policy', 'no-referrer')
  })

  test('racing clicks verify exactly once', async ({ client, assert }) => {
    const { bearer } = await signedInMember()
    const { link } = await startEmailChange(client, fake, bearer, 'next@example.test')
    const responses = await Promise.all(Array.from({ length: 4 }, () => open(client, link)))
    const locations = responses.map((response) => response.header('location')).sort()
    assert.deepEqual(locations, [INVALID, INVALID, INVALID, VERIFIED])
  })

  test('a link whose change was cancelled, blocked by five wrong codes or whose address was taken is invalid', async ({
    client,
    assert,
  }) => {
    const cancelled = await signedInMember()
    const a = await startEmailChange(client, fake, cancelled.bearer, 'a@example.test')
    await client
      .patch(route('profile.update'))
      .header('Authorization', cancelled.bearer)
      .json({ email: cancelled.user.email })
    assert.equal(await locationOf(client, a.link), INVALID)

    const blocked = await signedInMember()
    const b = await startEmailChange(client, fake, blocked.bearer, 'b@example.test')
    for (let i = 0; i < 5; i++) {
      await client
        .post(route('profile.email.verify'))
        .header('Authorization', blocked.bearer)
        .json({ otp: wrongOtp(b.otp) })
    }
    assert.equal(await locationOf(client, b.link), INVALID)

    const conflicted = await signedInMember()
    const c = await startEmailChange(client, fake, conflicted.bearer, 'c@example.test')
    const { user: other } = await createMerchantWithUser()
    other.email = 'c@example.test'
    await other.save()
    assert.equal(await locationOf(client, c.link), INVALID)
    const reloaded = await User.findOrFail(conflicted.user.id)
    assert.equal(reloaded.email, conflicted.user.email)
  })

  test('a link of a deactivated account is invalid', async ({ client, assert }) => {
    const { bearer, user } = await signedInMember()
    const { link } = await startEmailChange(client, fake, bearer, 'next@example.test')
    user.isActive = false
    await user.save()
    assert.equal(await locationOf(client, link), INVALID)
    const reloaded = await User.findOrFail(user.id)
    assert.equal(reloaded.email, user.email)
  })

  test('tampered parameters are 403 INVALID_SIGNATURE and change nothing', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    const { link } = await startEmailChange(client, fake, bearer, 'next@example.test')
    const url = new URL(link)
    const proof = url.searchParams.get('proof')!
    const expires = url.searchParams.get('expires')!
    const signature = url.searchParams.get('signature')!
    const otherId = '00000000-0000-4000-8000-000000000000'
    const tampered = [
      withQuery(link, 'proof', `${proof.slice(0, -1)}${proof.endsWith('0') ? '1' : '0'}`),
      withQuery(link, 'expires', String(Number(expires) + 3600)),
      withQuery(link, 'signature', `${signature.slice(0, -2)}xx`),
      withQuery(link, 'signature', null),
      withQuery(link, 'proof', null),
      withQuery(link, 'expires', null),
      withQuery(link, 'extra', '1'),
      link.replace(/verify\/[0-9a-f-]{36}/, `verify/${otherId}`),
      withQuery(link, 'signature', 'not-a-signature'),
    ]
    for (const candidate of tampered) {
      const response = await open(client, candidate)
      assert.equal(response.status(), 403, candidate)
      assert.equal(response.body().error_code, 'INVALID_SIGNATURE')
      assert.isUndefined(response.header('location'))
    }
    const arrays = await client.get(`${pathOf(link)}&signature=again`).redirects(0)
    arrays.assertStatus(403)
    const reloaded = await User.findOrFail(user.id)
    assert.equal(reloaded.email, user.email)
    assert.equal(reloaded.pendingEmail, 'next@example.test')
    assert.equal(await locationOf(client, link), VERIFIED)
  })

  test('an expired link (15 minutes) is 403 INVALID_SIGNATURE', async ({ client, assert }) => {
    setNow('2030-05-01T10:00:00Z')
    const { bearer, user } = await signedInMember()
    const { link } = await startEmailChange(client, fake, bearer, 'next@example.test')
    advanceClock(15 * 60 * 1000)
    const response = await open(client, link)
    response.assertStatus(403)
    response.assertBodyContains({ error_code: 'INVALID_SIGNATURE' })
    const reloaded = await User.findOrFail(user.id)
    assert.equal(reloaded.email, user.email)
  })

  test('missing or invalid Portal configuration is 503 and changes nothing', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    const { link } = await startEmailChange(client, fake, bearer, 'next@example.test')
    for (const value of [undefined, 'https://user@portal.example.test']) {
      const restorePortal = setEnv('PORTAL_URL', value)
      try {
        const response = await open(client, link)
        response.assertStatus(503)
        response.assertBodyContains({ error_code: 'SERVICE_UNAVAILABLE' })
      } finally {
        restorePortal()
      }
    }
    const reloaded = await User.findOrFail(user.id)
    assert.equal(reloaded.email, user.email)
    assert.equal(await locationOf(client, link), VERIFIED)
  })

  test('lives outside /api/v1, needs no PAT, and a malformed id is 404', async ({ client }) => {
    const { bearer } = await signedInMember()
    const { link } = await startEmailChange(client, fake, bearer, 'next@example.test')
    const underApi = await client.get(`/api/v1${pathOf(link)}`).redirects(0)
    underApi.assertStatus(404)
    const malformed = await client
      .get(pathOf(link).replace(/verify\/[0-9a-f-]{36}/, 'verify/not-a-uuid'))
      .redirects(0)
    malformed.assertStatus(404)
    const withBearer = await client
      .get(pathOf(link))
      .header('Authorization', 'Bearer junk')
      .redirects(0)
    withBearer.assertStatus(302)
  })

  test('is limited as a public route (30 per minute per IP); a refusal is audited and changes nothing', async ({
    client,
    assert,
  }) => {
    const { bearer, user } = await signedInMember()
    const { link } = await startEmailChange(client, fake, bearer, 'next@example.test')
    realLimits()
    const tampered = link.replace(/proof=[0-9a-f]/, 'proof=x')
    for (let i = 0; i < 30; i++) {
      const response = await open(client, tampered)
      response.assertStatus(403)
    }
    const limited = await open(client, link)
    limited.assertStatus(429)
    limited.assertBodyContains({ error_code: 'RATE_LIMITED' })
    const reloaded = await User.findOrFail(user.id)
    assert.equal(reloaded.email, user.email)
    const audits = await AuditLog.query().where('outcome', 'throttled')
    assert.deepEqual(
      audits.map((audit) => audit.action),
      ['user.email.verify_link']
    )
  })
})
