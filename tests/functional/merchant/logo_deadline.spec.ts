/*
| issue 38 › 1, 2: one deadline covers a whole image (header, decoding, encoding):
| LOGO_IMAGE_DEADLINE_SECONDS after the encoder was given the image, it is killed,
| whatever it is doing, and replaced. An encoder that dies on an image fails that one
| upload. An image whose client has gone gets a short grace, then its encoder is killed
| and replaced too. Either way the lane's place is free again. The deadline is set
| through the settings; the tests wait for outcomes, never for a clock.
*/
import { test } from '@japa/runner'
import { resetState } from '#tests/helpers/database'
import { setEnv } from '#tests/helpers/env'
import { signedInMember } from '#tests/helpers/portal'
import { clearLogoStorage, uploadLogo } from '#tests/helpers/merchant'
import { eventually } from '#tests/helpers/server_process'
import { tinyPng } from '#tests/helpers/images'
import {
  encoderPids,
  isRunning,
  laneGauges,
  uploadOverItsOwnSocket,
} from '#tests/helpers/logo_lane'
import { logoImageLane } from '#services/merchants/logo_image'
import { captureLogs, untilDepartureLogged } from '#tests/helpers/logs'
import db from '@adonisjs/lucid/services/db'

/** The encoder child, started by an upload if none runs yet. */
async function runningEncoder(upload: () => Promise<unknown>) {
  if (encoderPids().length === 0) await upload()
  const [pid] = encoderPids()
  return pid
}

test.group('POST /portal/merchant/logo: one deadline for a whole image', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())
  group.each.setup(() => logoImageLane().images.refillBudgets())

  test('an encoder stopped mid-image is killed once LOGO_IMAGE_DEADLINE_SECONDS pass: the upload is 503 with Retry-After, and the next image gets a new encoder', async ({
    client,
    assert,
    cleanup,
  }) => {
    const [admin, other] = [
      await signedInMember('administrator'),
      await signedInMember('administrator'),
    ]
    const image = await tinyPng()
    const stopped = await runningEncoder(() => uploadLogo(client, other, image))
    cleanup(setEnv('LOGO_IMAGE_DEADLINE_SECONDS', 1))
    process.kill(stopped, 'SIGSTOP')
    cleanup(() => {
      if (isRunning(stopped)) process.kill(stopped, 'SIGKILL')
    })

    const response = await uploadLogo(client, admin, image)
    response.assertStatus(503)
    assert.equal(response.body().error_code, 'SERVICE_UNAVAILABLE')
    assert.match(response.header('retry-after') ?? '', /^[1-9][0-9]*$/)
    await eventually(async () => !isRunning(stopped), 'the stopped encoder is gone')
    assert.deepEqual(await laneGauges(), { running: 0, queued: 0 })

    const next = await uploadLogo(client, other, image)
    next.assertStatus(200)
    assert.notInclude(encoderPids(), stopped)
    assert.lengthOf(encoderPids(), 1)
  })

  test('an encoder killed mid-image fails that upload with 422 on file; the lane is free and the next image gets a new encoder', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const image = await tinyPng()
    const killed = await runningEncoder(() => uploadLogo(client, admin, image))
    // Stopped first, so that it is surely given the image before it is killed.
    process.kill(killed, 'SIGSTOP')
    const pending = Promise.resolve(uploadLogo(client, admin, image))
    await eventually(
      async () => {
        const { running } = await laneGauges()
        return running === 1
      },
      'the image is in the encoder',
      { every: 5 }
    )
    process.kill(killed, 'SIGKILL')

    const response = await pending
    response.assertStatus(422)
    assert.deepEqual(response.body().errors, { file: ['The image could not be decoded.'] })
    assert.deepEqual(await laneGauges(), { running: 0, queued: 0 })
    const next = await uploadLogo(client, admin, image)
    next.assertStatus(200)
    assert.notInclude(encoderPids(), killed)
  })

  test('an image whose client has gone while the encoder works on it is stopped well before the deadline: the encoder is killed and replaced, nothing is stored, the lane is free', async ({
    client,
    assert,
    cleanup,
  }) => {
    const [admin, other] = [
      await signedInMember('administrator'),
      await signedInMember('administrator'),
    ]
    const image = await tinyPng()
    // A deadline far beyond the test's own bounds: only the departure can end the image.
    cleanup(setEnv('LOGO_IMAGE_DEADLINE_SECONDS', 3600))
    const stopped = await runningEncoder(() => uploadLogo(client, other, image))
    process.kill(stopped, 'SIGSTOP')
    cleanup(() => {
      if (isRunning(stopped)) process.kill(stopped, 'SIGKILL')
    })
    const logs = captureLogs()
    cleanup(() => logs.restore())

    const socket = await uploadOverItsOwnSocket(admin.bearer, image)
    cleanup(() => void socket.destroy())
    await eventually(
      async () => {
        const { running } = await laneGauges()
        return running === 1
      },
      'the image is in the encoder',
      { every: 5 }
    )
    socket.destroy()

    await eventually(async () => !isRunning(stopped), 'the stopped encoder is gone')
    await eventually(
      async () => {
        const { running, queued } = await laneGauges()
        return running === 0 && queued === 0
      },
      'the lane is free',
      { every: 5 }
    )
    const merchant = await db.from('merchants').where('id', admin.merchant.id).first()
    assert.isNull(merchant.logo_path)
    await untilDepartureLogged(logs)
    assert.isFalse(
      logs.lines.some((line) => /passed its deadline|dependency unavailable/.test(line))
    )

    const next = await uploadLogo(client, other, image)
    next.assertStatus(200)
    assert.notInclude(encoderPids(), stopped)
  })
})
