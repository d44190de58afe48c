/*
| Credentials under load and in races, and audit records under a flood (issue 9 ›
| 4, 6, 7, 8, 13).
*/
import { test } from '@japa/runner'
import type { ApiResponse } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import hash from '@adonisjs/core/services/hash'
import { Hash } from '@adonisjs/core/hash'
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import { advanceClock, resetState, untilSomeBackendWaitsForALock } from '#tests/helpers/database'
import {
  appHeaders,
  basicAuthorization,
  createMerchantWithUser,
  createPortalClient,
  PORTAL_ORIGIN,
  signedInMember,
  teammate,
} from '#tests/helpers/portal'
import { setEnv } from '#tests/helpers/env'
import { sha256Hex } from '#support/one_time_proof'
import { createInvitation, NEW_PASSWORD } from '#tests/helpers/team'
import { route } from '#tests/helpers/routes'
import { raiseLimits, setLimit } from '#tests/helpers/limits'
import { expectStatus, getProfile, portalLogin } from '#tests/helpers/requests'

/** Counts scrypt operations and the database connections in use while each runs. */
function watchHashing() {
  const pool = () => (db.connection().getWriteClient().client as any).pool
  const seen: number[] = []
  const originals = { make: Hash.prototype.make, verify: Hash.prototype.verify }
  Hash.prototype.make = function (this: Hash, ...args: Parameters<Hash['make']>) {
    seen.push(pool()?.numUsed() ?? 0)
    return originals.make.apply(this, args)
  }
  Hash.prototype.verify = function (this: Hash, ...args: Parameters<Hash['verify']>) {
    seen.push(pool()?.numUsed() ?? 0)
    return originals.verify.apply(this, args)
  }
  return {
    seen,
    restore: () => {
      Hash.prototype.make = originals.make
      Hash.prototype.verify = originals.verify
    },
  }
}

test.group('Failed application authentication (issue 9 › 4)', (group) => {
  group.each.setup(() => resetState())

  test('wrong Basic credentials from one IP are throttled by the API-wide limit, before any hashing', async ({
    client,
    assert,
  }) => {
    const app = await createPortalClient()
    const restore = setLimit('api', 5)
    const watch = watchHashing()
    try {
      const statuses: number[] = []
      for (let attempt = 0; attempt < 8; attempt++) {
        const response = await client
          .post(route('auth.login'))
          .header('Authorization', basicAuthorization(app.clientId, 'wrong-secret'))
          .header('X-Service-Application', 'merchant_portal')
          .json({ username: 'nobody@example.test', password: 'whatever1' })
        statuses.push(response.status())
        if (response.status() === 429) assert.isDefined(response.header('retry-after'))
      }
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429, 429])
      // One verification per admitted request; none for the refused ones.
      assert.lengthOf(watch.seen, 5)
    } finally {
      watch.restore()
      restore()
    }
  })

  test('invitation acceptance with wrong application credentials is throttled the same way', async ({
    client,
    assert,
  }) => {
    const app = await createPortalClient()
    const restore = setLimit('api', 3)
    try {
      const statuses: number[] = []
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await client
          .post(route('team.invitations.accept'))
          .header('Authorization', basicAuthorization(app.clientId, 'wrong-secret'))
          .header('X-Service-Application', 'merchant_portal')
          .json({})
        statuses.push(response.status())
      }
      assert.deepEqual(statuses, [401, 401, 401, 429, 429])
    } finally {
      restore()
    }
  })

  test('no password or secret is hashed while the request holds a database connection (no lock, no transaction)', async ({
    client,
    assert,
  }) => {
    const restore = raiseLimits()
    const restoreUrl = setEnv('PORTAL_URL', PORTAL_ORIGIN)
    // Fixtures first (factories hash too); only the requests are watched.
    const app = await createPortalClient()
    const { user, password } = await createMerchantWithUser()
    const session = await signedInMember()
    const team = await signedInMember('administrator')
    const { proof } = await createInvitation(team.merchant, team.user)
    const watch = watchHashing()
    try {
      const login = (pass: string) =>
        portalLogin(client, app, { username: user.email, password: pass })
      await expectStatus(login(password), 200)
      await expectStatus(login('Wrong-pass-1'), 401)
      await expectStatus(
        client.put(route('profile.password')).header('Authorization', session.bearer).json({
          current_password: session.password,
          password: NEW_PASSWORD,
          password_confirmation: NEW_PASSWORD,
        }),
        200
      )
      await expectStatus(
        client.post(route('team.invitations.accept')).headers(appHeaders(team.client)).json({
          token: proof,
          first_name: 'Nina',
          last_name: 'Newcomer',
          password: NEW_PASSWORD,
          password_confirmation: NEW_PASSWORD,
        }),
        200
      )

      assert.isAbove(watch.seen.length, 5)
      assert.deepEqual(
        watch.seen.filter((used) => used > 0),
        [],
        `connections in use while hashing: ${JSON.stringify(watch.seen)}`
      )
    } finally {
      watch.restore()
      restore()
      restoreUrl()
    }
  })
})

test.group('Audit flood (issue 9 › 6)', (group) => {
  group.each.setup(() => resetState())

  test('refused requests of one key and window make one throttled record with their count', async ({
    client,
    assert,
  }) => {
    const restore = setLimit('public', 2)
    try {
      const path = route('profile.email.verify_link', { verification: randomUUID() })
      const statuses: number[] = []
      for (let attempt = 0; attempt < 12; attempt++) {
        statuses.push(await client.get(path).then((response) => response.status()))
      }
      assert.deepEqual(statuses.slice(2), Array(10).fill(429))
      const rows = await db.from('audit_logs').where('outcome', 'throttled')
      assert.lengthOf(rows, 1)
      assert.equal(rows[0].action, 'user.email.verify_link')
      assert.equal(rows[0].refused_count, 10)

      // A new window starts a new record.
      advanceClock(60_000)
      await expectStatus(client.get(path), 429)
      const after = await db.from('audit_logs').where('outcome', 'throttled').orderBy('id', 'asc')
      assert.lengthOf(after, 2)
      assert.deepEqual(
        after.map((row: { refused_count: number }) => row.refused_count),
        [10, 1]
      )
    } finally {
      restore()
    }
  })

  test('refusals racing each other are all counted on the one record', async ({
    client,
    assert,
  }) => {
    const restore = setLimit('public', 1)
    try {
      const path = route('profile.email.verify_link', { verification: randomUUID() })
      await expectStatus(client.get(path), 403)
      const responses = await Promise.all(Array.from({ length: 20 }, () => client.get(path)))
      assert.isTrue(responses.every((response) => response.status() === 429))
      const rows = await db.from('audit_logs').where('outcome', 'throttled')
      assert.lengthOf(rows, 1)
      assert.equal(rows[0].refused_count, 20)
    } finally {
      restore()
    }
  })
})

test.group('Login racing a password change (issue 9 › 7)', (group) => {
  group.each.setup(() => resetState())

  test('a login verified before a concurrent change commits issues no PAT that outlives the change', async ({
    client,
    assert,
  }) => {
    const app = await createPortalClient()
    const { user, password } = await createMerchantWithUser()
    // What a password change does, in a transaction held open: new hash, tokens revoked.
    const change = await db.transaction()
    let login: PromiseLike<ApiResponse> | undefined
    try {
      await change
        .from('users')
        .where('id', user.id)
        .update({ password: await hash.make(NEW_PASSWORD) })
      await change.from('auth_access_tokens').where('tokenable_id', user.id).delete()
      login = portalLogin(client, app, { username: user.email, password })
      // The login verifies the old password (it reads the committed row), then must
      // wait for the change before issuing.
      const finished = login.then(() => 'finished' as const)
      const outcome = await Promise.race([
        untilSomeBackendWaitsForALock({ query: '%from "users"%' }).then(() => 'waiting' as const),
        finished,
      ])
      assert.equal(outcome, 'waiting', 'the login issued a PAT without waiting for the change')
      await change.commit()
    } finally {
      if (!change.isCompleted) await change.rollback()
    }
    const response = await login!
    response.assertStatus(401)
    assert.equal(response.body().error_code, 'INVALID_CREDENTIALS')
    const tokens = await db.from('auth_access_tokens').where('tokenable_id', user.id)
    assert.lengthOf(tokens, 0)
  })

  test('really racing logins and a password change: no PAT issued by a login works after the change', async ({
    client,
    assert,
  }) => {
    const restore = raiseLimits()
    try {
      const app = await createPortalClient()
      const session = await signedInMember()
      const logins = Array.from({ length: 6 }, () =>
        portalLogin(client, app, { username: session.user.email, password: session.password })
      )
      const change = client
        .put(route('profile.password'))
        .header('Authorization', session.bearer)
        .json({
          current_password: session.password,
          password: NEW_PASSWORD,
          password_confirmation: NEW_PASSWORD,
        })
      const [changed, ...responses] = await Promise.all([change, ...logins])
      changed.assertStatus(200)
      for (const response of responses) {
        if (response.status() !== 200) continue
        const me = await getProfile(client, `Bearer ${response.body().data.access_token}`)
        // Issued before the change committed: revoked by it.
        me.assertStatus(401)
      }
      assert.lengthOf(await db.from('auth_access_tokens').where('tokenable_id', session.user.id), 0)
    } finally {
      restore()
    }
  })
})

test.group('new-password timing (issue 9 › 8)', (group) => {
  group.each.setup(() => resetState())

  test('an unknown email and a known email with a wrong proof run the same queries', async ({
    client,
    assert,
  }) => {
    const { user } = await createMerchantWithUser()
    await db.table('password_reset_tokens').insert({
      user_id: user.id,
      token_hash: sha256Hex('a'.repeat(64)),
      expires_at: DateTime.now().plus({ minutes: 60 }).toJSDate(),
      created_at: DateTime.now().toJSDate(),
    })
    const knex = db.connection().getWriteClient()
    const queries: string[] = []
    const listener = (query: { sql: string }) => {
      if (!/rate_limits/.test(query.sql)) queries.push(query.sql)
    }
    const body = (email: string) => ({
      email,
      token: 'b'.repeat(64),
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    })
    knex.on('query', listener)
    let unknown: string[]
    let known: string[]
    try {
      await expectStatus(
        client.post(route('auth.new_password')).json(body('nobody@example.test')),
        400
      )
      unknown = queries.splice(0)
      await expectStatus(client.post(route('auth.new_password')).json(body(user.email)), 400)
      known = queries.splice(0)
    } finally {
      knex.removeListener('query', listener)
    }
    assert.isAbove(unknown.length, 0)
    assert.deepEqual(known, unknown)
  })
})

test.group('Removal and outstanding proofs (issue 9 › 13)', (group) => {
  group.each.setup(() => resetState())

  test('a password-reset proof requested before removal cannot set a password afterwards', async ({
    client,
    assert,
  }) => {
    const team = await signedInMember('administrator')
    const member = await teammate(team, 'developer')
    const proof = 'c'.repeat(64)
    await db.table('password_reset_tokens').insert({
      user_id: member.user.id,
      token_hash: sha256Hex(proof),
      expires_at: DateTime.now().plus({ minutes: 60 }).toJSDate(),
      created_at: DateTime.now().toJSDate(),
    })
    await db
      .from('users')
      .where('id', member.user.id)
      .update({
        pending_email: 'pending-new@example.test',
        pending_email_expires_at: DateTime.now().plus({ minutes: 15 }).toJSDate(),
        pending_email_verification_id: randomUUID(),
        pending_email_otp_hash: 'x'.repeat(64),
        pending_email_proof_hash: 'y'.repeat(64),
      })

    await expectStatus(
      client
        .delete(route('team.members.destroy', { member: member.user.id }))
        .header('Authorization', team.bearer),
      204
    )

    const reset = await client.post(route('auth.new_password')).json({
      email: member.user.email,
      token: proof,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    })
    reset.assertStatus(400)
    assert.equal(reset.body().error_code, 'RESET_TOKEN_INVALID')
    assert.lengthOf(await db.from('password_reset_tokens').where('user_id', member.user.id), 0)
    const row = await db.from('users').where('id', member.user.id).first()
    assert.isNull(row.pending_email)
    assert.isNull(row.pending_email_verification_id)
    assert.isNull(row.pending_email_otp_hash)
    assert.isNull(row.pending_email_proof_hash)
  })
})
