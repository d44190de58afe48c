/*
| issue 38 › fair place in line: a new password is hashed in the line of the account it
| is for (a reset, a change) or of the invitation it accepts, not in one line shared by
| every caller, and it is dropped while it waits when its client has gone: nothing is
| written, and the proof it came with still works. Observed through the hash queue's
| counters and its per-line bound (a quarter of PASSWORD_HASH_QUEUE), never timing.
*/
import { randomBytes } from 'node:crypto'
import { test } from '@japa/runner'
import type { ApiClient, ApiResponse } from '@japa/api-client'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import hash from '@adonisjs/core/services/hash'
import { passwordHashQueue } from '#config/hash'
import { sha256Hex } from '#support/one_time_proof'
import type User from '#models/user'
import { resetState } from '#tests/helpers/database'
import { appHeaders, createMerchantWithUser, createPortalClient } from '#tests/helpers/portal'
import { raiseLimits } from '#tests/helpers/limits'
import { overrideEnv } from '#tests/helpers/env'
import { route } from '#tests/helpers/routes'
import { createInvitation, NEW_PASSWORD } from '#tests/helpers/team'
import {
  holdTheHashingSlots,
  leaveWhileTheCheckWaits,
  untilQueued,
} from '#tests/helpers/hash_queue'

/** A reset proof of `user`, stored as a mailed link stores it. */
async function storedResetProof(user: User) {
  const token = randomBytes(32).toString('hex')
  const now = DateTime.now()
  await db.table('password_reset_tokens').insert({
    user_id: user.id,
    token_hash: sha256Hex(token),
    expires_at: now.plus({ minutes: 60 }).toJSDate(),
    created_at: now.toJSDate(),
  })
  return { email: user.email, token }
}

function resetBody(proof: { email: string; token: string }) {
  return { ...proof, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }
}

/** Sends a reset now (an api-client request is sent when awaited). */
function reset(client: ApiClient, proof: { email: string; token: string }) {
  return Promise.resolve<ApiResponse>(
    client.post(route('auth.new_password')).json(resetBody(proof))
  )
}

async function storedPassword(user: User) {
  const row = await db.from('users').where('id', user.id).select('password').first()
  return row.password as string
}

test.group('New passwords wait in the line of their account or invitation', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => raiseLimits())

  test("a reset's new password waits in its account's line: a second reset of the same account is shed with 503 and Retry-After, another account's waits its turn", async ({
    client,
    assert,
    cleanup,
  }) => {
    // Four places in all, one per line.
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 4, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const { user: first } = await createMerchantWithUser()
    const { user: second } = await createMerchantWithUser()
    const firstProofs = [await storedResetProof(first), await storedResetProof(first)]
    const secondProof = await storedResetProof(second)
    const letGo = holdTheHashingSlots()
    cleanup(letGo)
    const before = passwordHashQueue.stats

    const firstReset = reset(client, firstProofs[0])
    await untilQueued(1)
    const shed = await reset(client, firstProofs[1])
    shed.assertStatus(503)
    assert.equal(shed.body().error_code, 'SERVICE_UNAVAILABLE')
    assert.match(shed.header('retry-after') ?? '', /^[1-9][0-9]*$/)
    const secondReset = reset(client, secondProof)
    await untilQueued(2)

    await letGo()
    for (const answer of await Promise.all([firstReset, secondReset])) answer.assertStatus(200)
    assert.equal(passwordHashQueue.stats.refused.key_full, before.refused.key_full + 1)
    assert.isTrue(await hash.verify(await storedPassword(first), NEW_PASSWORD))
    assert.isTrue(await hash.verify(await storedPassword(second), NEW_PASSWORD))
  })

  test('a reset whose client has gone while its new password waits is never hashed, writes nothing, and its link still works', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 10, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const { user } = await createMerchantWithUser()
    const proof = await storedResetProof(user)
    const passwordBefore = await storedPassword(user)
    const letGo = holdTheHashingSlots()
    cleanup(letGo)

    const before = await leaveWhileTheCheckWaits(
      { path: route('auth.new_password'), headers: {}, payload: resetBody(proof) },
      cleanup
    )
    await letGo()
    // The holders' hashes only: the new password was never hashed.
    assert.equal(passwordHashQueue.stats.started, before.started)
    assert.equal(await storedPassword(user), passwordBefore)
    assert.lengthOf(await db.from('password_reset_tokens').where('user_id', user.id), 1)

    const again = await reset(client, proof)
    again.assertStatus(200)
  })

  test('an invitation accepted as a new account whose client has gone while its password waits is never hashed: no account, the invitation still pending', async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 10, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const application = await createPortalClient()
    const { merchant, user: inviter } = await createMerchantWithUser()
    const { invitation, proof } = await createInvitation(merchant, inviter)
    const body = {
      token: proof,
      first_name: 'Nina',
      last_name: 'Newcomer',
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    }
    const letGo = holdTheHashingSlots()
    cleanup(letGo)

    const before = await leaveWhileTheCheckWaits(
      { path: route('team.invitations.accept'), headers: appHeaders(application), payload: body },
      cleanup
    )
    await letGo()
    assert.equal(passwordHashQueue.stats.started, before.started)
    assert.lengthOf(await db.from('users').where('email', invitation.email), 0)
    await invitation.refresh()
    assert.equal(invitation.status, 'pending')

    const again = await client
      .post(route('team.invitations.accept'))
      .headers(appHeaders(application))
      .json(body)
    again.assertStatus(200)
  })
})
