import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import { realLimits } from '#tests/helpers/limits'
import hash from '@adonisjs/core/services/hash'
import db from '@adonisjs/lucid/services/db'
import type { FakeMailer } from '@adonisjs/mail'
import { resetState } from '#tests/helpers/database'
import { issuePat, signedInMember } from '#tests/helpers/portal'
import { profileTestSetup } from '#tests/helpers/profile'
import User from '#models/user'
import AuditLog from '#models/audit_log'
import { settleBackgroundDeliveries } from '#services/mailer'
import { route } from '#tests/helpers/routes'
import { passwordHashQueue } from '#config/hash'
import { getProfile, portalLogin } from '#tests/helpers/requests'

let fake: FakeMailer
let restore: () => Promise<void>
const NEW_PASSWORD = 'Brand-New-Passw0rd!'

function change(client: ApiClient, bearer: string, body: unknown) {
  return client.put(route('profile.password')).header('Authorization', bearer).json(body)
}

test.group('PUT /portal/me/password', (group) => {
  group.each.setup(async () => {
    await resetState()
    ;({ fake, restore } = profileTestSetup())
    return () => restore()
  })

  test('changes the password, answers reauthentication_required and revokes every PAT, the current one included', async ({
    client,
    assert,
  }) => {
    const { bearer, user, password, client: app } = await signedInMember('developer')
    const otherPat = await issuePat(user, app)
    const response = await change(client, bearer, {
      current_password: password,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
      role: 1,
      anything: 'ignored',
    })
    response.assertStatus(200)
    assert.deepEqual(response.body().data, { reauthentication_required: true })
    const stored = await User.findOrFail(user.id)
    assert.isTrue(await hash.verify(stored.password, NEW_PASSWORD))
    assert.equal(stored.role, 10)
    for (const token of [bearer, `Bearer ${otherPat}`]) {
      const me = await getProfile(client, token)
      me.assertStatus(401)
      me.assertBodyContains({ error_code: 'ACCESS_TOKEN_INVALID' })
    }
    const oldLogin = await portalLogin(client, app, { username: user.email, password })
    oldLogin.assertStatus(401)
    const newLogin = await portalLogin(client, app, {
      username: user.email,
      password: NEW_PASSWORD,
    })
    newLogin.assertStatus(200)
    const audits = await AuditLog.query().where('action', 'user.password.change')
    assert.lengthOf(audits, 1)
    assert.notInclude(JSON.stringify(audits[0].serialize()), NEW_PASSWORD)
    fake.mails.assertNoneSent()
  })

  test('a wrong current_password is 422 on that field and changes nothing', async ({
    client,
    assert,
  }) => {
    const { bearer, user, password } = await signedInMember()
    const response = await change(client, bearer, {
      current_password: `${password}x`,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    })
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['current_password'])
    const stored = await User.findOrFail(user.id)
    assert.isTrue(await hash.verify(stored.password, password))
    const me = await getProfile(client, bearer)
    me.assertStatus(200)
  })

  test("a wrong current_password costs one hash, in the user's line: the new password is hashed only once the current one matched", async ({
    client,
    assert,
  }) => {
    const { bearer, password } = await signedInMember()
    const before = passwordHashQueue.stats.started
    const response = await change(client, bearer, {
      current_password: `${password}x`,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    })
    response.assertStatus(422)
    assert.equal(passwordHashQueue.stats.started, before + 1)
  })

  test('a surrounding space makes the current password wrong (passwords are not trimmed)', async ({
    client,
  }) => {
    const { bearer, password } = await signedInMember()
    const response = await change(client, bearer, {
      current_password: ` ${password}`,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    })
    response.assertStatus(422)
  })

  test('the new password follows the policy with an identical confirmation', async ({
    client,
    assert,
  }) => {
    const { bearer, password } = await signedInMember()
    for (const candidate of [
      'Short-1a!',
      'no-upper-case-1!',
      'NO-LOWER-CASE-1!',
      'No-Digits-Here!!',
      'NoSymbols123456',
      `Aa1!${'x'.repeat(125)}`,
    ]) {
      const response = await change(client, bearer, {
        current_password: password,
        password: candidate,
        password_confirmation: candidate,
      })
      assert.equal(response.status(), 422, candidate)
      assert.property(response.body().errors, 'password')
    }
    const mismatch = await change(client, bearer, {
      current_password: password,
      password: NEW_PASSWORD,
      password_confirmation: `${NEW_PASSWORD} `,
    })
    mismatch.assertStatus(422)
    assert.property(mismatch.body().errors, 'password_confirmation')
    for (const body of [
      {},
      { current_password: null },
      {
        current_password: 'x'.repeat(129),
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      },
      { current_password: 5 },
    ]) {
      const response = await change(client, bearer, body)
      assert.equal(response.status(), 422, JSON.stringify(body).slice(0, 40))
    }
  })

  test('the 12-128 bounds count characters (code points), not UTF-16 units', async ({
    client,
    assert,
  }) => {
    const emoji = '\u{1F600}'
    // 8 characters (12 UTF-16 units): too short.
    const { bearer, password } = await signedInMember()
    const short = `Aa1!${emoji.repeat(4)}`
    const refused = await change(client, bearer, {
      current_password: password,
      password: short,
      password_confirmation: short,
    })
    refused.assertStatus(422)
    assert.property(refused.body().errors, 'password')
    // 104 characters (204 UTF-16 units): within 128.
    const long = `Aa1!${emoji.repeat(100)}`
    const accepted = await change(client, bearer, {
      current_password: password,
      password: long,
      password_confirmation: long,
    })
    accepted.assertStatus(200)
  })

  test('also drops a pending password reset proof', async ({ client, assert }) => {
    const { bearer, user, password } = await signedInMember()
    await client
      .post(route('auth.reset_link'))
      .json({ email: user.email, reset_url: 'https://portal.example.test/reset' })
    await settleBackgroundDeliveries()
    const before = await db.from('password_reset_tokens')
    assert.lengthOf(before, 1)
    await change(client, bearer, {
      current_password: password,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    })
    const after = await db.from('password_reset_tokens')
    assert.lengthOf(after, 0)
  })

  test('two racing changes with the same current password: exactly one succeeds', async ({
    client,
    assert,
  }) => {
    const { user, password, client: app } = await signedInMember()
    const pats = await Promise.all([1, 2, 3].map(() => issuePat(user, app)))
    const candidates = ['First-Passw0rd!!', 'Second-Passw0rd!', 'Third-Passw0rd!!']
    const responses = await Promise.all(
      pats.map((pat, i) =>
        change(client, `Bearer ${pat}`, {
          current_password: password,
          password: candidates[i],
          password_confirmation: candidates[i],
        })
      )
    )
    const statuses = responses.map((response) => response.status())
    assert.deepEqual([...statuses].sort(), [200, 422, 422])
    const winner = candidates[statuses.indexOf(200)]
    const stored = await User.findOrFail(user.id)
    assert.isTrue(await hash.verify(stored.password, winner))
    for (const response of responses.filter((r) => r.status() === 422)) {
      assert.property(response.body().errors, 'current_password')
    }
  })

  test('needs a PAT', async ({ client }) => {
    const response = await client.put(route('profile.password')).json({})
    response.assertStatus(401)
    response.assertBodyContains({ error_code: 'UNAUTHENTICATED' })
  })

  test('is limited to 6 per minute per user', async ({ client }) => {
    realLimits()
    const { bearer } = await signedInMember()
    for (let i = 0; i < 6; i++) {
      const response = await change(client, bearer, {})
      response.assertStatus(422)
    }
    const limited = await change(client, bearer, {})
    limited.assertStatus(429)
    limited.assertBodyContains({ error_code: 'RATE_LIMITED' })
  })
})
