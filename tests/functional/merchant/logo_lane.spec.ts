/*
| issue 21 › Heavy work in bounded lanes: logo images are decoded and encoded in the
| logo_image lane (app/services/merchants/logo_image.ts): at most
| LOGO_IMAGE_CONCURRENCY at once per process (1 here), the others waiting (their order:
| tests/unit/work_lane.spec.ts);
| at most LOGO_IMAGE_QUEUE waiting, at most two per merchant; beyond that 503
| SERVICE_UNAVAILABLE with Retry-After. Observed through the lane's Prometheus gauges,
| never through timing: a test holds the lane's places itself, so uploads stay queued
| until it lets them go.
*/
import { test } from '@japa/runner'
import { threadStats } from '#tests/helpers/thread_stat'
import type { ApiClient, ApiResponse } from '@japa/api-client'
import { advanceClock, resetState, setNow } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { clearLogoStorage, uploadLogo } from '#tests/helpers/merchant'
import { eventually, pause } from '#tests/helpers/server_process'
import { tinyPng, tinyWebp } from '#tests/helpers/images'
import { logoImageLane } from '#services/merchants/logo_image'
import { metricsText } from '#platform/metrics_server'
import {
  encoderPids,
  holdTheLane,
  laneGauges,
  uploadOverItsOwnSocket,
} from '#tests/helpers/logo_lane'
import { captureLogs, untilDepartureLogged } from '#tests/helpers/logs'
import db from '@adonisjs/lucid/services/db'

async function refusals(reason: string) {
  const line = new RegExp(
    `^portal_lane_refusals_total\\{lane="logo_image",reason="${reason}"\\} (\\d+)$`,
    'm'
  )
  const text = await metricsText()
  return Number(text.match(line)?.[1] ?? 0)
}

/** Sends an upload now (an api-client request is sent when awaited). */
const send = (request: PromiseLike<ApiResponse>) => Promise.resolve(request)

function untilQueued(count: number) {
  const queued = async () => {
    const { queued: now } = await laneGauges()
    return now === count
  }
  return eventually(queued, `${count} queued`, { every: 5 })
}

/** The Linux scheduling policy number of SCHED_IDLE (sched.h). */
const SCHED_IDLE = 5

async function administrators(count: number) {
  return Promise.all(Array.from({ length: count }, () => signedInMember('administrator')))
}

/**
 * Fills the lane: its places held by the test, LOGO_IMAGE_QUEUE uploads of other
 * administrators waiting. Returns one more administrator, the uploads waiting, and
 * how to let them go (also registered as the test's cleanup).
 */
async function fullLane(client: ApiClient, cleanup: (handler: () => Promise<void>) => void) {
  const { images } = logoImageLane()
  const admins = await administrators(images.maxQueued + 1)
  const latecomer = admins.pop()!
  const image = await tinyPng()
  const letGo = holdTheLane()
  cleanup(letGo)
  const waiting = admins.map((admin) => send(uploadLogo(client, admin, image)))
  await untilQueued(images.maxQueued)
  return { latecomer, image, waiting, letGo }
}

test.group('Logo images go through a bounded lane', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())
  // Merchant ids restart with every test; the time charged to the last test's do not carry over.
  group.each.setup(() => logoImageLane().images.refillBudgets())

  test('at most LOGO_IMAGE_CONCURRENCY images are processed at once; the others wait, then all are stored', async ({
    client,
    assert,
    cleanup,
  }) => {
    const { images, encoders } = logoImageLane()
    const admins = await administrators(3)
    const image = await tinyPng()
    const letGo = holdTheLane()
    cleanup(letGo)
    assert.deepEqual(await laneGauges(), { running: images.concurrency, queued: 0 })

    const uploads = admins.map((admin) => send(uploadLogo(client, admin, image)))
    await untilQueued(3)
    assert.deepEqual(await laneGauges(), { running: images.concurrency, queued: 3 })

    await letGo()
    // While they drain, no sample ever shows two images in work.
    let settled = false
    const all = Promise.all(uploads).finally(() => (settled = true))
    while (!settled) {
      const { running } = await laneGauges()
      assert.isAtMost(running, images.concurrency)
      assert.isAtMost(encoders.started, images.concurrency)
      await pause(5)
    }
    for (const response of await all) response.assertStatus(200)
    assert.deepEqual(await laneGauges(), { running: 0, queued: 0 })
  })

  test('a merchant has at most two uploads in the lane: the third is 503 SERVICE_UNAVAILABLE with Retry-After, others still queue', async ({
    client,
    assert,
    cleanup,
  }) => {
    const [admin, other] = await administrators(2)
    const image = await tinyWebp()
    const letGo = holdTheLane()
    cleanup(letGo)
    const before = await refusals('key_busy')

    const first = [send(uploadLogo(client, admin, image)), send(uploadLogo(client, admin, image))]
    await untilQueued(2)
    const third = await uploadLogo(client, admin, image)
    third.assertStatus(503)
    assert.equal(third.body().error_code, 'SERVICE_UNAVAILABLE')
    assert.match(third.header('retry-after') ?? '', /^[1-9][0-9]*$/)
    assert.equal(await refusals('key_busy'), before + 1)

    const others = send(uploadLogo(client, other, image))
    await untilQueued(3)

    await letGo()
    for (const response of await Promise.all([...first, others])) response.assertStatus(200)
  })

  test('an upload refused by the lane is counted, not logged as an outage', async ({
    client,
    assert,
    cleanup,
  }) => {
    const { latecomer, image, waiting, letGo } = await fullLane(client, cleanup)
    const logs = captureLogs()
    cleanup(() => logs.restore())
    const before = await refusals('queue_full')

    const refused = await uploadLogo(client, latecomer, image)
    refused.assertStatus(503)
    assert.equal(await refusals('queue_full'), before + 1)
    assert.isFalse(logs.lines.some((line) => line.includes('dependency unavailable')))
    assert.isTrue(logs.lines.some((line) => line.includes('request shed')))

    await letGo()
    for (const response of await Promise.all(waiting)) response.assertStatus(200)
  })

  test('an upload whose client has gone while its image waits for the lane is dropped: never decoded, nothing stored', async ({
    assert,
    cleanup,
  }) => {
    const [admin] = await administrators(1)
    const image = await tinyPng()
    const letGo = holdTheLane()
    cleanup(letGo)
    const logs = captureLogs()
    cleanup(() => logs.restore())

    const socket = await uploadOverItsOwnSocket(admin.bearer, image)
    cleanup(() => void socket.destroy())
    await untilQueued(1)
    socket.destroy()
    await untilQueued(0)
    await letGo()

    assert.deepEqual(await laneGauges(), { running: 0, queued: 0 })
    const merchant = await db.from('merchants').where('id', admin.merchant.id).first()
    assert.isNull(merchant.logo_path)
    await untilDepartureLogged(logs)
    assert.isFalse(logs.lines.some((line) => line.includes('dependency unavailable')))
  })

  test("a merchant whose images took LOGO_IMAGE_SECONDS_PER_MINUTE of the lane is 503 with Retry-After until it is repaid; other merchants' images are stored", async ({
    client,
    assert,
    cleanup,
  }) => {
    cleanup(() => logoImageLane().images.refillBudgets())
    const [admin, other] = await administrators(2)
    const image = await tinyWebp()
    const { images } = logoImageLane()
    const perMinute = images.secondsPerKeyPerMinute!
    setNow(new Date())
    const before = await refusals('key_budget')
    // The merchant's images held the lane for its whole minute's share, and 3 s more.
    await images.run(String(admin.merchant.id), async () => advanceClock((perMinute + 3) * 1000))

    const refused = await uploadLogo(client, admin, image)
    refused.assertStatus(503)
    assert.equal(refused.body().error_code, 'SERVICE_UNAVAILABLE')
    // The 3 s are repaid at perMinute / 60 a second.
    assert.equal(refused.header('retry-after'), String(Math.ceil((3 * 60) / perMinute)))
    assert.equal(await refusals('key_budget'), before + 1)
    const others = await uploadLogo(client, other, image)
    others.assertStatus(200)

    advanceClock(Math.ceil((3 * 60) / perMinute) * 1000 - 1)
    const early = await uploadLogo(client, admin, image)
    early.assertStatus(503)
    advanceClock(1)
    const repaid = await uploadLogo(client, admin, image)
    repaid.assertStatus(200)
  })

  test('with LOGO_IMAGE_QUEUE uploads waiting, the next is 503 SERVICE_UNAVAILABLE with Retry-After at once', async ({
    client,
    assert,
    cleanup,
  }) => {
    const before = await refusals('queue_full')
    const { latecomer, image, waiting, letGo } = await fullLane(client, cleanup)
    const refused = await uploadLogo(client, latecomer, image)
    refused.assertStatus(503)
    assert.equal(refused.body().error_code, 'SERVICE_UNAVAILABLE')
    assert.match(refused.header('retry-after') ?? '', /^[1-9][0-9]*$/)
    assert.equal(await refusals('queue_full'), before + 1)

    await letGo()
    for (const response of await Promise.all(waiting)) response.assertStatus(200)
    // Once the queue drained, the latecomer is admitted.
    const retried = await uploadLogo(client, latecomer, image)
    retried.assertStatus(200)
  })

  test('while the lane is full an upload is 503 before its body is read: a file that is no image is refused as busy, then as invalid', async ({
    client,
    assert,
    cleanup,
  }) => {
    const notAnImage = Buffer.from('this is not an image, and reading it would answer 422')
    const { latecomer, waiting, letGo } = await fullLane(client, cleanup)
    const busy = await uploadLogo(client, latecomer, notAnImage)
    busy.assertStatus(503)
    assert.equal(busy.body().error_code, 'SERVICE_UNAVAILABLE')
    assert.match(busy.header('retry-after') ?? '', /^[1-9][0-9]*$/)

    await letGo()
    for (const response of await Promise.all(waiting)) response.assertStatus(200)
    const judged = await uploadLogo(client, latecomer, notAnImage)
    judged.assertStatus(422)
    assert.property(judged.body().errors, 'file')
  })

  test('the encoder runs at SCHED_IDLE and nice 10 on every thread, so it never takes a core the server wants', async ({
    client,
    assert,
  }) => {
    const [admin] = await administrators(1)
    const uploaded = await uploadLogo(client, admin, await tinyWebp())
    uploaded.assertStatus(200)
    const encoders = encoderPids()
    assert.isAbove(encoders.length, 0)
    for (const pid of encoders) {
      const threads = await threadStats(pid)
      assert.isAbove(threads.length, 1)
      for (const { thread, nice, policy } of threads) {
        assert.equal(nice, 10, `nice of thread ${thread}`)
        assert.equal(policy, SCHED_IDLE, `policy of thread ${thread}`)
      }
    }
  })
})
