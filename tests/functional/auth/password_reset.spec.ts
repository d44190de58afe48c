import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import { realLimits } from '#tests/helpers/limits'
import db from '@adonisjs/lucid/services/db'
import hash from '@adonisjs/core/services/hash'
import type { FakeMailer } from '@adonisjs/mail'
import {
  resetState,
  setNow,
  advanceClock,
  untilSomeBackendWaitsForALock,
} from '#tests/helpers/database'
import {
  appHeaders,
  createMerchantWithUser,
  createPortalClient,
  issuePat,
  PORTAL_ORIGIN,
} from '#tests/helpers/portal'
import { profileTestSetup, sentResetMails } from '#tests/helpers/profile'
import { setEnv, withEnv } from '#tests/helpers/env'
import { runCommand } from '#tests/helpers/foundation'
import User from '#models/user'
import AuditLog from '#models/audit_log'
import { sha256Hex } from '#support/one_time_proof'
import { route } from '#tests/helpers/routes'
import AuthPrune from '../../../commands/auth_prune.js'

const NEW_PASSWORD = 'Brand-New-Passw0rd!'
const RESET_URL = `${PORTAL_ORIGIN}/reset-password`
const MINUTE = 60 * 1000

let fake: FakeMailer
let restore: () => Promise<void>

async function requestLink(client: ApiClient, email: string, resetUrl = RESET_URL) {
  return client.post(route('auth.reset_link')).json({ email, reset_url: resetUrl })
}

/** Requests a link for `email` and returns the token and email of the mailed link. */
async function mailedProof(client: ApiClient, email: string) {
  const response = await requestLink(client, email)
  response.assertStatus(200)
  const mails = await sentResetMails(fake)
  const link = new URL(mails[mails.length - 1].resetLink)
  return { token: link.searchParams.get('token')!, email: link.searchParams.get('email')! }
}

function newPassword(client: ApiClient, body: Record<string, unknown>) {
  return client.post(route('auth.new_password')).json(body)
}

/** Sets `password`, confirmed as typed, with a proof (its email and token). */
function resetWith(client: ApiClient, proof: object, password = NEW_PASSWORD) {
  return newPassword(client, { ...proof, password, password_confirmation: password })
}

/** Each test: empty tables and a fake mailer, restored after. */
async function freshStateAndMailer() {
  await resetState()
  ;({ fake, restore } = profileTestSetup())
  return () => restore()
}

/**
 * Locks `table` in `mode` in a transaction of the test's own, so that no request's work
 * gets past it until released (at the latest when the test ends).
 */
async function holdTable(
  table: string,
  mode: 'EXCLUSIVE' | 'ACCESS EXCLUSIVE',
  cleanup: (release: () => Promise<void>) => void
) {
  const lock = await db.transaction()
  let released = false
  const release = async () => {
    if (!released) await lock.rollback()
    released = true
  }
  cleanup(release)
  await lock.rawQuery(`LOCK TABLE ${table} IN ${mode} MODE`)
  return release
}

test.group('POST /auth/reset-password/reset-link', (group) => {
  group.each.setup(freshStateAndMailer)

  test('answers the same generic 200 for known and unknown emails; mails only the known one', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    const known = await requestLink(client, user.email)
    const unknown = await requestLink(client, 'nobody@example.test')
    known.assertStatus(200)
    unknown.assertStatus(200)
    assert.deepEqual(known.body(), unknown.body())
    assert.deepEqual(known.body(), {
      success: true,
      message: known.body().message,
      data: null,
    })
    const mails = await sentResetMails(fake)
    assert.lengthOf(mails, 1)
    assert.equal(mails[0].recipient, user.email)
    const rows = await db.from('password_reset_tokens')
    assert.lengthOf(rows, 1)
  })

  test('the answer does not wait for the account: lookup, proof and mail come after the response', async ({
    client,
    assert,
    cleanup,
  }) => {
    const { user } = await createMerchantWithUser()
    // Holds back any write of a proof: an answer that waited for it would never come
    // (this test would then fail by its timeout).
    const release = await holdTable('password_reset_tokens', 'EXCLUSIVE', cleanup)
    const response = await requestLink(client, user.email)
    response.assertStatus(200)
    assert.lengthOf(fake.mails.sent(), 0)
    await release()
    const mails = await sentResetMails(fake)
    assert.lengthOf(mails, 1)
    assert.lengthOf(await db.from('password_reset_tokens'), 1)
  })

  test('mails reset_url with token and email appended as query values; stores only a hash', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    await requestLink(client, user.email.toUpperCase(), `${PORTAL_ORIGIN}/auth/reset`)
    const [sent] = await sentResetMails(fake)
    assert.match(
      sent.resetLink,
      /^https:\/\/portal\.example\.test\/auth\/reset\?token=[0-9a-f]{64}&email=/
    )
    const link = new URL(sent.resetLink)
    assert.equal(link.searchParams.get('email'), user.email)
    const token = link.searchParams.get('token')!
    const [row] = await db.from('password_reset_tokens')
    assert.equal(row.token_hash, sha256Hex(token))
    assert.notInclude(JSON.stringify(row), token)
    const message = sent.message.toJSON().message
    assert.include(String(message.text), sent.resetLink)
    assert.include(String(message.html), sent.resetLink.replace(/&/g, '&amp;'))
    assert.deepEqual(message.to, [user.email])
  })

  test('reset_url must share scheme, host and effective port with PORTAL_URL, without userinfo, query or fragment', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    const refused = [
      'http://portal.example.test/reset',
      'https://portal.example.test:8443/reset',
      'https://other.example.test/reset',
      'https://portal.example.test.evil.test/reset',
      'https://user:pw@portal.example.test/reset',
      'https://@portal.example.test/reset',
      'https://portal.example.test/reset?next=1',
      'https://portal.example.test/reset?',
      'https://portal.example.test/reset#x',
      'https://portal.example.test\\@evil.test/reset',
      '//portal.example.test/reset',
      '/reset',
      'javascript:alert(1)',
      `${PORTAL_ORIGIN}/${'a'.repeat(150)}`,
      '',
    ]
    for (const resetUrl of refused) {
      const response = await requestLink(client, user.email, resetUrl)
      assert.equal(response.status(), 422, resetUrl)
      assert.property(response.body().errors, 'reset_url', resetUrl)
    }
    for (const resetUrl of [
      'https://portal.example.test',
      'https://PORTAL.example.test:443/a/b',
      `${PORTAL_ORIGIN}/${'a'.repeat(150 - PORTAL_ORIGIN.length - 1)}`,
    ]) {
      const response = await requestLink(client, user.email, resetUrl)
      assert.equal(response.status(), 200, resetUrl)
    }
  })

  test('an http Portal origin with an explicit port needs exactly that scheme and port', async ({
    client,
  }) => {
    const restorePortal = setEnv('PORTAL_URL', 'http://localhost:5173')
    try {
      const { user } = await createMerchantWithUser()
      for (const [resetUrl, status] of [
        ['http://localhost:5173/reset', 200], // the same origin
        ['http://localhost/reset', 422], // the default port
        ['https://localhost:5173/reset', 422], // another scheme
      ] as const) {
        const response = await requestLink(client, user.email, resetUrl)
        response.assertStatus(status)
      }
    } finally {
      restorePortal()
    }
  })

  test('answers 503 when PORTAL_URL is missing or invalid', async ({ client }) => {
    const { user } = await createMerchantWithUser()
    for (const value of [
      undefined,
      'not a url',
      'ftp://portal.example.test',
      'https://portal.example.test/app?x=1',
    ]) {
      const restorePortal = setEnv('PORTAL_URL', value)
      try {
        const response = await requestLink(client, user.email)
        response.assertStatus(503)
        response.assertBodyContains({ error_code: 'SERVICE_UNAVAILABLE' })
      } finally {
        restorePortal()
      }
    }
  })

  test('validates email and reset_url; ignores unlisted fields; never 500 on hostile values', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    const hostile: unknown[] = [
      null,
      1,
      true,
      [],
      {},
      'x'.repeat(10_000),
      '\u0000',
      '\ud800',
      'a\udc00@example.test',
      99999999999999999999999,
    ]
    for (const value of hostile) {
      const a = await client
        .post(route('auth.reset_link'))
        .json({ email: value, reset_url: RESET_URL })
      assert.equal(a.status(), 422)
      const b = await client
        .post(route('auth.reset_link'))
        .json({ email: user.email, reset_url: value })
      assert.equal(b.status(), 422)
    }
    const proto = await client
      .post(route('auth.reset_link'))
      .json(
        JSON.parse(
          '{"email":"a@example.test","reset_url":"https://portal.example.test/r","__proto__":{"x":1},"role":1}'
        )
      )
    proto.assertStatus(200)
  })

  test('mails nothing to inactive accounts or accounts of inactive merchants', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    user.isActive = false
    await user.save()
    await requestLink(client, user.email)
    assert.lengthOf(await sentResetMails(fake), 0)
    assert.lengthOf(await db.from('password_reset_tokens'), 0)
  })
})

test.group('POST /auth/reset-password/reset-link › cooldown per account', (group) => {
  group.each.setup(async () => {
    const teardown = await freshStateAndMailer()
    setNow('2030-01-01T00:00:00Z')
    return teardown
  })

  /** Requests a link for `email` `elapsed` ms after the group's start; resolves once its work is done. */
  async function requestLinkAt(client: ApiClient, email: string, elapsed: number) {
    setNow(new Date(Date.parse('2030-01-01T00:00:00Z') + elapsed))
    const response = await requestLink(client, email)
    response.assertStatus(200)
    return sentResetMails(fake)
  }

  test('within 5 minutes of a mail, another request mails nothing and the mailed link keeps working', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    const first = await mailedProof(client, user.email)
    const [proofRow] = await db.from('password_reset_tokens')
    advanceClock(5 * MINUTE - 1)
    const again = await requestLink(client, user.email)
    again.assertStatus(200)
    assert.lengthOf(await sentResetMails(fake), 1)
    assert.deepEqual(await db.from('password_reset_tokens'), [proofRow])
    // A suppressed request leaves no trace: no audit record, no mail counted.
    assert.lengthOf(await db.from('audit_logs'), 0)
    assert.lengthOf(await db.from('password_reset_mailings'), 1)
    const reset = await resetWith(client, first)
    reset.assertStatus(200)
  })

  test('5 minutes after a mail, a request mails a second link; the first keeps working (issue 38 › 5)', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    const first = await mailedProof(client, user.email)
    advanceClock(5 * MINUTE)
    const second = await mailedProof(client, user.email)
    assert.lengthOf(await sentResetMails(fake), 2)
    assert.notEqual(second.token, first.token)
    assert.lengthOf(await db.from('password_reset_tokens'), 2)
    // Someone else asking for a mail to the owner's address never kills the owner's link.
    const owners = await resetWith(client, first)
    owners.assertStatus(200)
  })

  test('the first proof used revokes the account’s other proofs', async ({ client, assert }) => {
    const { user } = await createMerchantWithUser()
    const first = await mailedProof(client, user.email)
    advanceClock(5 * MINUTE)
    const second = await mailedProof(client, user.email)
    const used = await resetWith(client, second)
    used.assertStatus(200)
    const other = 'Another-Passw0rd!'
    const revoked = await resetWith(client, first, other)
    revoked.assertStatus(400)
    revoked.assertBodyContains({ error_code: 'RESET_TOKEN_INVALID' })
    assert.lengthOf(await db.from('password_reset_tokens'), 0)
  })

  test('two proofs of one account used at once: one sets the password, the other is revoked', async ({
    client,
    assert,
    cleanup,
  }) => {
    const { user } = await createMerchantWithUser()
    const first = await mailedProof(client, user.email)
    advanceClock(5 * MINUTE)
    const second = await mailedProof(client, user.email)
    // Both requests are held at their first lock on the account, then let go at once:
    // they must take turns, not deadlock on each other's proof.
    const release = await holdTable('users', 'EXCLUSIVE', cleanup)
    const passwords = ['First-Passw0rd!!', 'Second-Passw0rd!']
    const answers = Promise.all(
      [first, second].map((proof, index) => resetWith(client, proof, passwords[index]))
    )
    await untilSomeBackendWaitsForALock({ query: '%users%', backends: 2 })
    await release()
    const responses = await answers
    const statuses = responses.map((response: any) => response.status())
    assert.sameMembers(statuses, [200, 400])
    const winner = passwords[statuses.indexOf(200)]
    const stored = await db.from('users').where('id', user.id).select('password').first()
    assert.isTrue(await hash.verify(stored.password, winner))
  })

  test('at most 3 mails an hour: a fourth goes out once the first is an hour old', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    for (const minutes of [0, 5, 10, 15, 59]) {
      await requestLinkAt(client, user.email, minutes * MINUTE)
    }
    const sentBeforeTheHour = await requestLinkAt(client, user.email, 60 * MINUTE - 1)
    assert.lengthOf(sentBeforeTheHour, 3)
    // The refused requests replaced nothing: the account's live proofs are the three
    // mailed, as many as the hourly cap allows.
    const mailed = sentBeforeTheHour.map((sent) =>
      sha256Hex(new URL(sent.resetLink).searchParams.get('token')!)
    )
    const rows = await db.from('password_reset_tokens').select('token_hash')
    assert.sameMembers(
      rows.map((row) => row.token_hash),
      mailed
    )

    assert.lengthOf(await requestLinkAt(client, user.email, 60 * MINUTE), 4)
  })

  test('a mail that fails to send does not count: no cooldown, no proof left, the next request mails at once', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    const send = fake.send.bind(fake)
    let failures = 1
    fake.send = (async (...args: Parameters<typeof send>) => {
      if (failures-- > 0) throw new Error('relay unreachable')
      return send(...args)
    }) as typeof fake.send
    const failed = await requestLink(client, user.email)
    failed.assertStatus(200)
    assert.lengthOf(await sentResetMails(fake), 0)
    assert.lengthOf(await db.from('password_reset_mailings'), 0)
    assert.lengthOf(await db.from('password_reset_tokens'), 0)

    const proof = await mailedProof(client, user.email)
    assert.lengthOf(await sentResetMails(fake), 1)
    const reset = await resetWith(client, proof)
    reset.assertStatus(200)
  })

  test('RESET_LINK_COOLDOWN_MINUTES and RESET_LINK_MAILS_PER_HOUR set the cooldown and the cap', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    await withEnv({ RESET_LINK_COOLDOWN_MINUTES: 1, RESET_LINK_MAILS_PER_HOUR: 2 }, async () => {
      for (const minutes of [0, 0.5, 1, 2]) {
        await requestLinkAt(client, user.email, minutes * MINUTE)
      }
      assert.lengthOf(await sentResetMails(fake), 2)
      assert.lengthOf(await requestLinkAt(client, user.email, 60 * MINUTE), 3)
    })
  })

  test('the answer is the same generic 200 whether a mail goes out or not, and does not wait for that decision', async ({
    client,
    assert,
    cleanup,
  }) => {
    const { user: cooling } = await createMerchantWithUser()
    const { user: fresh } = await createMerchantWithUser()
    await mailedProof(client, cooling.email)
    // No request below gets as far as reading the mails sent until release().
    const release = await holdTable('password_reset_mailings', 'ACCESS EXCLUSIVE', cleanup)
    const answers = [
      await requestLink(client, cooling.email),
      await requestLink(client, fresh.email),
      await requestLink(client, 'nobody@example.test'),
    ]
    const shape = (response: any) => ({
      status: response.status(),
      body: response.body(),
      type: response.header('content-type'),
      length: response.header('content-length'),
      cache: response.header('cache-control'),
    })
    assert.equal(answers[0].status(), 200)
    assert.deepEqual(answers.map(shape), Array(answers.length).fill(shape(answers[0])))
    assert.lengthOf(fake.mails.sent(), 1)
    await release()
    const mails = await sentResetMails(fake)
    assert.deepEqual(
      mails.map((sent) => sent.recipient),
      [cooling.email, fresh.email]
    )
  })

  test('racing requests for one account send one mail, and the stored proof is the mailed one', async ({
    client,
    assert,
    cleanup,
  }) => {
    const { user } = await createMerchantWithUser()
    const racers = 4
    // Every request's lookup is held at the merchants join, then all are let go at once.
    const release = await holdTable('merchants', 'ACCESS EXCLUSIVE', cleanup)
    const answers = await Promise.all(
      Array.from({ length: racers }, () => requestLink(client, user.email))
    )
    for (const answer of answers) answer.assertStatus(200)
    await untilSomeBackendWaitsForALock({ query: '%merchants%', backends: racers })
    await release()
    const mails = await sentResetMails(fake)
    assert.lengthOf(mails, 1)
    assert.lengthOf(await db.from('password_reset_mailings'), 1)
    const [row] = await db.from('password_reset_tokens')
    const mailed = new URL(mails[0].resetLink).searchParams.get('token')!
    assert.equal(row.token_hash, sha256Hex(mailed))
  })

  test('auth:prune deletes the record of a mail once it no longer counts against the cap', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    const { user: later } = await createMerchantWithUser()
    await mailedProof(client, user.email)
    advanceClock(30 * MINUTE)
    await mailedProof(client, later.email)
    advanceClock(30 * MINUTE)
    const result = await runCommand(AuthPrune, [])
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    assert.equal(result.json().deleted.password_reset_mailings, 1)
    const kept = await db.from('password_reset_mailings').select('user_id')
    assert.deepEqual(
      kept.map((row) => row.user_id),
      [later.id]
    )
  })
})

test.group('POST /auth/reset-password/new-password', (group) => {
  group.each.setup(freshStateAndMailer)

  test('sets the new password, consumes the token and revokes every PAT of the user', async ({
    client,
    assert,
  }) => {
    const app = await createPortalClient()
    const { user } = await createMerchantWithUser()
    const patA = await issuePat(user, app)
    const patB = await issuePat(user, app)
    const proof = await mailedProof(client, user.email)
    const response = await resetWith(client, proof)
    response.assertStatus(200)
    assert.deepEqual(response.body(), {
      success: true,
      message: response.body().message,
      data: null,
    })
    await user.refresh()
    assert.isTrue(await hash.verify(user.password, NEW_PASSWORD))
    for (const pat of [patA, patB]) {
      const me = await client.get(route('profile.show')).header('Authorization', `Bearer ${pat}`)
      me.assertStatus(401)
    }
    const login = await client
      .post(route('auth.login'))
      .headers(appHeaders(app))
      .json({ username: user.email, password: NEW_PASSWORD })
    login.assertStatus(200)
    const reused = await resetWith(client, proof, 'Another-Passw0rd!!')
    reused.assertStatus(400)
    reused.assertBodyContains({ error_code: 'RESET_TOKEN_INVALID' })
  })

  test('a token is valid for 60 minutes', async ({ client }) => {
    setNow('2030-01-01T00:00:00Z')
    const { user } = await createMerchantWithUser()
    const proof = await mailedProof(client, user.email)
    advanceClock(60 * 60 * 1000)
    const expired = await resetWith(client, proof)
    expired.assertStatus(400)
    expired.assertBodyContains({ error_code: 'RESET_TOKEN_INVALID' })
    setNow('2030-01-01T00:59:59Z')
    const inTime = await resetWith(client, proof)
    inTime.assertStatus(200)
  })

  test('a wrong token, another email or an unknown email is 400 RESET_TOKEN_INVALID', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    const { user: other } = await createMerchantWithUser()
    const proof = await mailedProof(client, user.email)
    for (const body of [
      { email: user.email, token: 'f'.repeat(64) },
      { email: user.email, token: proof.token.slice(0, 63) },
      { email: other.email, token: proof.token },
      { email: 'nobody@example.test', token: proof.token },
    ]) {
      const response = await resetWith(client, body)
      assert.equal(response.status(), 400)
      assert.equal(response.body().error_code, 'RESET_TOKEN_INVALID')
    }
    await user.refresh()
    assert.isFalse(await hash.verify(user.password, NEW_PASSWORD))
  })

  test('enforces the password policy and an identical untrimmed confirmation (422 before the proof)', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    const proof = await mailedProof(client, user.email)
    const weak = [
      'Short-1a!',
      'no-upper-case-1!',
      'NO-LOWER-CASE-1!',
      'No-Digits-Here!!',
      'NoSymbols123456',
      `Aa1!${'x'.repeat(125)}`,
    ]
    for (const password of weak) {
      const response = await resetWith(client, proof, password)
      assert.equal(response.status(), 422, password)
      assert.property(response.body().errors, 'password', password)
    }
    const untrimmed = await newPassword(client, {
      ...proof,
      password: NEW_PASSWORD,
      password_confirmation: ` ${NEW_PASSWORD}`,
    })
    untrimmed.assertStatus(422)
    assert.property(untrimmed.body().errors, 'password_confirmation')
    const missing = await newPassword(client, { email: user.email, password: NEW_PASSWORD })
    missing.assertStatus(422)
    assert.includeMembers(Object.keys(missing.body().errors), ['token', 'password_confirmation'])
    // The proof survived the failed attempts; a password with spaces is kept as sent.
    const spaced = ` ${NEW_PASSWORD} `
    const ok = await newPassword(client, {
      ...proof,
      password: spaced,
      password_confirmation: spaced,
      role: 1,
    })
    ok.assertStatus(200)
    const stored = await User.findOrFail(user.id)
    assert.isTrue(await hash.verify(stored.password, spaced))
  })

  test('hostile email and token values are 422, never 500', async ({ client, assert }) => {
    for (const value of [
      null,
      1,
      [],
      {},
      'x'.repeat(10_000),
      '\u0000',
      '\ud800',
      'a\udc00@b.test',
    ]) {
      for (const field of ['email', 'token']) {
        const response = await newPassword(client, {
          email: 'someone@example.test',
          token: 'f'.repeat(64),
          password: NEW_PASSWORD,
          password_confirmation: NEW_PASSWORD,
          [field]: value,
        })
        assert.equal(response.status(), 422, `${field}=${JSON.stringify(value)}`)
        assert.property(response.body().errors, field)
      }
    }
  })

  test('two racing requests with one token: exactly one succeeds', async ({ client, assert }) => {
    const { user } = await createMerchantWithUser()
    const proof = await mailedProof(client, user.email)
    const responses = await Promise.all(
      ['First-Passw0rd!!', 'Second-Passw0rd!', 'Third-Passw0rd!!'].map((password) =>
        resetWith(client, proof, password)
      )
    )
    const statuses = responses.map((response) => response.status()).sort()
    assert.deepEqual(statuses, [200, 400, 400])
  })
})

test.group('Reset endpoints › public limit', (group) => {
  group.each.setup(freshStateAndMailer)

  test('30 public requests per minute per IP, reset-link and new-password together; refusals are audited', async ({
    client,
    assert,
  }) => {
    realLimits()
    for (let i = 0; i < 30; i++) {
      const response = await requestLink(client, `nobody${i}@example.test`)
      response.assertStatus(200)
    }
    const limited = await requestLink(client, 'nobody@example.test')
    limited.assertStatus(429)
    limited.assertBodyContains({ error_code: 'RATE_LIMITED' })
    assert.match(limited.header('retry-after')!, /^[1-9][0-9]*$/)
    const reset = await resetWith(client, { email: 'nobody@example.test', token: 'f'.repeat(64) })
    reset.assertStatus(429)
    const audits = await AuditLog.query().where('outcome', 'throttled').orderBy('id')
    assert.deepEqual(
      audits.map((audit) => audit.action),
      ['user.password.reset_link', 'user.password.reset']
    )
    for (const audit of audits) {
      assert.isNull(audit.actorUserId)
      assert.isNotNull(audit.ip)
      assert.notInclude(JSON.stringify(audit.serialize()), 'nobody@example.test')
    }
  })
})
