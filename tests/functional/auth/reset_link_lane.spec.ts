/*
| issue 38 › every job a bound and a place in line: the work after a reset-link answer
| (the lookup, the proof, the mail) waits in a lane of its own
| (app/services/profile/password_reset_link.ts, resetWorkLane). While places are free
| or waiting room is left, the answer is 200 at once and the mail follows; beyond, the
| request is shed with 503 and Retry-After before any of it is done, for a known
| address as for an unknown one. The test holds the lane's places itself: never timing.
*/
import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import type { FakeMailer } from '@adonisjs/mail'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { createMerchantWithUser, PORTAL_ORIGIN } from '#tests/helpers/portal'
import { profileTestSetup, sentResetMails } from '#tests/helpers/profile'
import { route } from '#tests/helpers/routes'
import { eventually } from '#tests/helpers/server_process'
import { resetWorkLane } from '#services/profile/password_reset_link'
import PasswordResetMail from '#mails/password_reset_mail'

const RESET_URL = `${PORTAL_ORIGIN}/reset-password`

let fake: FakeMailer
let restore: () => Promise<void>

function requestLink(client: ApiClient, email: string) {
  return client.post(route('auth.reset_link')).json({ email, reset_url: RESET_URL })
}

/** Takes the lane's places, and its waiting room too when `andWaiting`, until let go. */
function holdTheResetLane(andWaiting: boolean) {
  const lane = resetWorkLane()
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const count = lane.concurrency + (andWaiting ? lane.maxQueued : 0)
  const holders = Array.from({ length: count }, (_, index) =>
    lane.run(`test-holder-${index}`, () => released)
  )
  return async () => {
    release()
    await Promise.all(holders)
  }
}

const resetMailsNow = () =>
  fake.mails.sent((sent) => sent instanceof PasswordResetMail) as PasswordResetMail[]

test.group('POST /auth/reset-password/reset-link: its work waits in a bounded lane', (group) => {
  group.each.setup(async () => {
    await resetState()
    ;({ fake, restore } = profileTestSetup())
    return () => restore()
  })

  test('with every place taken, the answer is 200 at once and the mail goes out once a place frees', async ({
    client,
    assert,
    cleanup,
  }) => {
    const { user } = await createMerchantWithUser()
    const letGo = holdTheResetLane(false)
    cleanup(letGo)

    const response = await requestLink(client, user.email)
    response.assertStatus(200)
    await eventually(async () => resetWorkLane().queued === 1, 'the request waiting for a place', {
      every: 5,
    })
    assert.lengthOf(resetMailsNow(), 0)

    await letGo()
    assert.lengthOf(await sentResetMails(fake), 1)
  })

  test('with its waiting room full, a request is 503 SERVICE_UNAVAILABLE with Retry-After, for a known address as for an unknown one, and nothing is recorded or sent', async ({
    client,
    assert,
    cleanup,
  }) => {
    const { user } = await createMerchantWithUser()
    const letGo = holdTheResetLane(true)
    cleanup(letGo)

    for (const email of [user.email, 'nobody@example.test']) {
      const response = await requestLink(client, email)
      response.assertStatus(503)
      assert.equal(response.body().error_code, 'SERVICE_UNAVAILABLE')
      assert.match(response.header('retry-after') ?? '', /^[1-9][0-9]*$/)
    }

    await letGo()
    assert.lengthOf(await sentResetMails(fake), 0)
    assert.lengthOf(await db.from('password_reset_mailings'), 0)
    assert.lengthOf(await db.from('password_reset_tokens'), 0)

    const later = await requestLink(client, user.email)
    later.assertStatus(200)
    assert.lengthOf(await sentResetMails(fake), 1)
  })
})
