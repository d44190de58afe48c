/*
| issue 38 › 3: a login's password hash waits in a bounded queue, fair between login
| identities (app/platform/hash_queue.ts, docs/operations.md › Password hashing on
| threads of its own). Beyond PASSWORD_HASH_QUEUE waiting, a quarter of it for one
| identity, or PASSWORD_HASH_MAX_WAIT_MS of expected wait: 503 with Retry-After at
| once. A login whose client has gone is never hashed.
| Observed through the queue's counters and the order of answers, never through
| timing: the test holds every hashing slot itself, so logins stay queued until it
| lets them go.
*/
import { test } from '@japa/runner'
import type { Assert } from '@japa/assert'
import type { ApiClient, ApiResponse } from '@japa/api-client'
import { passwordHashQueue } from '#config/hash'
import { callersOnSharedChecks } from '#auth/password_hashing'
import { resetState } from '#tests/helpers/database'
import {
  appHeaders,
  createMerchantWithUser,
  createPortalClient,
  signedInMember,
} from '#tests/helpers/portal'
import { raiseLimits } from '#tests/helpers/limits'
import { overrideEnv } from '#tests/helpers/env'
import { route } from '#tests/helpers/routes'
import { eventually, REQUEST_MS } from '#tests/helpers/server_process'
import type PortalClient from '#models/portal_client'
import { portalLogin } from '#tests/helpers/requests'
import {
  holdTheHashingSlots,
  leaveWhileTheCheckWaits,
  untilQueued,
} from '#tests/helpers/hash_queue'
import { captureLogs, untilDepartureLogged } from '#tests/helpers/logs'
import { auditRows } from '#tests/helpers/machine'
import db from '@adonisjs/lucid/services/db'

const WRONG_PASSWORD = 'Wrong-Horse-1-Battery'
/** A guesser's flood: every attempt a different password (the same one shares a hash). */
const wrongPassword = (attempt: number) => `${WRONG_PASSWORD}-${attempt}`

/** Sends a login now (an api-client request is sent when awaited). */
function login(client: ApiClient, app: PortalClient, username: string, password: string) {
  return Promise.resolve<ApiResponse>(portalLogin(client, app, { username, password }))
}

function assertShed(assert: Assert, response: ApiResponse) {
  response.assertStatus(503)
  assert.equal(response.body().error_code, 'SERVICE_UNAVAILABLE')
  assert.match(response.header('retry-after') ?? '', /^[1-9][0-9]*$/)
}

test.group('Login password hashes wait in a bounded, fair queue', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => raiseLimits())
  group.each.setup(() =>
    eventually(
      async () => passwordHashQueue.stats.running + passwordHashQueue.stats.queued === 0,
      'an idle hash queue',
      { within: REQUEST_MS, every: 20 }
    )
  )

  test('beyond PASSWORD_HASH_QUEUE waiting, or a quarter of it for one identity, a login is 503 with Retry-After at once; none is 500', async ({
    client,
    assert,
    cleanup,
  }) => {
    // Four places, one per identity.
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 4, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const app = await createPortalClient()
    const first = await createMerchantWithUser()
    const second = await createMerchantWithUser()
    const identities = [
      first.user.email,
      second.user.username,
      'nobody@example.com',
      'nobody-at-all',
    ]
    const before = passwordHashQueue.stats
    const letGo = holdTheHashingSlots()
    cleanup(letGo)

    const answered: ApiResponse[] = []
    const logins = identities.flatMap((identity) =>
      [1, 2, 3].map((attempt) =>
        login(client, app, identity, wrongPassword(attempt)).then((response) => {
          answered.push(response)
          return response
        })
      )
    )
    // The eight beyond the bounds are answered while the others still wait.
    await eventually(async () => answered.length === 8, 'eight logins shed', {
      within: REQUEST_MS,
      every: 20,
    })
    await untilQueued(4)
    for (const response of answered) assertShed(assert, response)

    await letGo()
    const responses = await Promise.all(logins)
    assert.deepEqual(
      responses.map((response) => response.status()).sort(),
      [401, 401, 401, 401, 503, 503, 503, 503, 503, 503, 503, 503]
    )
    const after = passwordHashQueue.stats
    // The holders, then one login of each identity.
    assert.equal(after.admitted - before.admitted, passwordHashQueue.slots + 4)
    const refused = (stats: typeof before) => stats.refused.key_full + stats.refused.queue_full
    assert.equal(refused(after) - refused(before), 8)
  })

  test('a login shed by the queue is counted, not logged as an outage: no warning line per refused login', async ({
    client,
    assert,
    cleanup,
  }) => {
    // One place in all, one for the identity: its first login waits, the next two are shed.
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 1, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const app = await createPortalClient()
    const logs = captureLogs()
    cleanup(() => logs.restore())
    const letGo = holdTheHashingSlots()
    cleanup(letGo)

    const waiting = login(client, app, 'nobody@example.com', wrongPassword(1))
    await untilQueued(1)
    const shed = await Promise.all(
      [2, 3].map((attempt) => login(client, app, 'nobody@example.com', wrongPassword(attempt)))
    )
    for (const response of shed) assertShed(assert, response)
    await letGo()
    const checked = await waiting
    checked.assertStatus(401)

    const warnings = logs.lines.filter((line) =>
      /dependency unavailable|unexpected failure/.test(line)
    )
    assert.deepEqual(warnings, [])
    const shedLines = logs.lines.filter((line) => line.includes('request shed'))
    assert.lengthOf(shedLines, 2)
  })

  test('a login whose hash would wait longer than PASSWORD_HASH_MAX_WAIT_MS is 503 with Retry-After at once', async ({
    client,
    assert,
    cleanup,
  }) => {
    // No hash takes under a millisecond: with every slot busy, any wait is too long.
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 100, PASSWORD_HASH_MAX_WAIT_MS: 1 }))
    const app = await createPortalClient()
    const { user } = await createMerchantWithUser()
    const before = passwordHashQueue.stats.refused.wait_too_long
    const letGo = holdTheHashingSlots()
    cleanup(letGo)

    assertShed(assert, await login(client, app, user.email, WRONG_PASSWORD))
    assert.equal(passwordHashQueue.stats.refused.wait_too_long, before + 1)
    assert.equal(passwordHashQueue.stats.queued, 0)

    // With a slot free, nothing waits: the same login is checked.
    await letGo()
    const checked = await login(client, app, user.email, WRONG_PASSWORD)
    checked.assertStatus(401)
  })

  test('overlapping checks of the same password against the same account share one hash: none is shed', async ({
    client,
    assert,
    cleanup,
  }) => {
    // Two places for the identity (a quarter of 8): without sharing, all but two of
    // these twelve would be 503.
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 8, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const app = await createPortalClient()
    const { user, password } = await createMerchantWithUser()
    const letGo = holdTheHashingSlots()
    cleanup(letGo)
    const before = passwordHashQueue.stats

    const right = Array.from({ length: 6 }, () => login(client, app, user.email, password))
    const wrong = Array.from({ length: 6 }, () => login(client, app, user.email, WRONG_PASSWORD))
    await untilQueued(2)
    // Every login has joined one of the two checks before any hash runs: one identity's
    // hashes run one at a time, and a login arriving after its check ended would hash anew.
    await eventually(async () => callersOnSharedChecks() === 12, '12 logins on 2 checks', {
      within: REQUEST_MS,
      every: 20,
    })
    await letGo()
    const responses = await Promise.all([...right, ...wrong])
    const statuses = responses.map((response) => response.status())
    assert.deepEqual(statuses, [...Array(6).fill(200), ...Array(6).fill(401)])
    assert.equal(passwordHashQueue.stats.admitted - before.admitted, 2)
  })

  test("one identity flooded with wrong passwords does not push another merchant's login back: it is answered before the flood's tail", async ({
    client,
    assert,
    cleanup,
  }) => {
    // Forty places, ten per identity: the whole flood waits.
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 40, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const app = await createPortalClient()
    const target = await createMerchantWithUser({ role: 'developer' })
    const other = await createMerchantWithUser()
    const letGo = holdTheHashingSlots()
    cleanup(letGo)

    const order: string[] = []
    const flood = Array.from({ length: 10 }, (_, attempt) =>
      login(client, app, target.user.email, wrongPassword(attempt)).then((response) => {
        order.push('flood')
        return response
      })
    )
    await untilQueued(10)
    const otherLogin = login(client, app, other.user.email, other.password).then((response) => {
      order.push('other')
      return response
    })
    await untilQueued(11)

    await letGo()
    const signedIn = await otherLogin
    signedIn.assertStatus(200)
    for (const response of await Promise.all(flood)) response.assertStatus(401)
    // Served second, beside the flood's first: in arrival order it would be served
    // last, with at most one of the flood still running.
    const floodAfter = order.length - 1 - order.indexOf('other')
    assert.isAtLeast(floodAfter, 3, `order of answers: ${order.join(', ')}`)
  })

  test('a login whose client has gone while its hash waits is never hashed, and is logged as the client leaving, not an outage', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 10, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const app = await createPortalClient()
    const { user } = await createMerchantWithUser()
    const letGo = holdTheHashingSlots()
    cleanup(letGo)
    const logs = captureLogs()
    cleanup(() => logs.restore())

    const before = await leaveWhileTheCheckWaits(
      {
        path: route('auth.login'),
        headers: appHeaders(app),
        payload: { username: user.email, password: WRONG_PASSWORD },
      },
      cleanup
    )
    assert.equal(passwordHashQueue.stats.queued, 0)
    await untilDepartureLogged(logs)
    assert.isFalse(logs.lines.some((line) => line.includes('dependency unavailable')))

    await letGo()
    // The next login is hashed; the dropped one never was.
    const next = await login(client, app, user.email, WRONG_PASSWORD)
    next.assertStatus(401)
    assert.equal(passwordHashQueue.stats.started, before.started + 1)
  })
})

test.group('Current-password checks wait in the same queue', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => raiseLimits())

  test('a machine-client issue whose client has gone while its current-password check waits is never hashed, and writes nothing', async ({
    assert,
    cleanup,
  }) => {
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 10, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const admin = await signedInMember('administrator')
    const letGo = holdTheHashingSlots()
    cleanup(letGo)
    const auditsBefore = await auditRows()

    const before = await leaveWhileTheCheckWaits(
      {
        path: route('merchant.machine_clients.store'),
        headers: { Authorization: admin.bearer },
        payload: {
          label: 'Orders server',
          reason: 'Integration server',
          current_password: admin.password,
        },
      },
      cleanup
    )
    await letGo()
    // The holders' hashes only: the check was never computed.
    assert.equal(passwordHashQueue.stats.started, before.started)
    assert.lengthOf(await db.from('merchant_oauth_clients'), 0)
    assert.lengthOf(await auditRows(), auditsBefore.length)
  })

  test('a password change whose client has gone while its current-password check waits is never hashed, and the password stays', async ({
    assert,
    cleanup,
  }) => {
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 10, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const member = await signedInMember('developer')
    const storedPassword = async () => {
      const row = await db.from('users').where('id', member.user.id).select('password').first()
      return row.password
    }
    const storedBefore = await storedPassword()
    const letGo = holdTheHashingSlots()
    cleanup(letGo)

    const newPassword = 'Brand-New-Passw0rd!'
    const before = await leaveWhileTheCheckWaits(
      {
        path: route('profile.password'),
        method: 'PUT',
        headers: { Authorization: member.bearer },
        payload: {
          current_password: member.password,
          password: newPassword,
          password_confirmation: newPassword,
        },
      },
      cleanup
    )
    await letGo()
    assert.equal(passwordHashQueue.stats.started, before.started)
    assert.equal(await storedPassword(), storedBefore)
  })
})
