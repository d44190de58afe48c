/*
| issue 38 › 1: a logo's cost is bounded by each side and the aspect ratio, not only by
| its pixel count (app/services/merchants/logo_bounds.ts): at most 4096 pixels a side,
| the longer side at most 32 times the shorter. What is over is refused with 422 on
| file from its header, before anything is decoded: while the test holds every place
| of the image lane, such an upload is still answered, so it never waited for one.
*/
import { test } from '@japa/runner'
import sharp from 'sharp'
import db from '@adonisjs/lucid/services/db'
import drive from '@adonisjs/drive/services/main'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { clearLogoStorage, uploadLogo } from '#tests/helpers/merchant'
import { handMadeGreyPng } from '#tests/helpers/images'
import { holdTheLane, laneGauges } from '#tests/helpers/logo_lane'
import { logoImageLane } from '#services/merchants/logo_image'

const TOO_MANY = 'The image has too many pixels: at most 4096 x 4096.'
const TOO_NARROW =
  'The image is too narrow for a logo: its longer side may be at most 32 times its shorter side.'

const grey = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#808080' } })

async function storedLogo(merchantId: number) {
  const row = await db.from('merchants').where('id', merchantId).select('logo_path').first()
  return row.logo_path ? Buffer.from(await drive.use('fs').getBytes(row.logo_path)) : null
}

test.group('POST /portal/merchant/logo bounds each side and the aspect ratio', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())
  group.each.setup(() => logoImageLane().images.refillBudgets())

  const refused: Array<[string, () => Promise<Buffer> | Buffer, string, string]> = [
    // 65 KB, within 4096² pixels, and a minute of decoding and encoding (issue 38).
    ['a 1 x 16,777,216 PNG', () => handMadeGreyPng(1, 16_777_216), 'logo.png', TOO_MANY],
    ['a 4097 x 64 PNG', () => grey(4097, 64).png().toBuffer(), 'logo.png', TOO_MANY],
    ['a 64 x 4097 JPEG', () => grey(64, 4097).jpeg().toBuffer(), 'logo.jpg', TOO_MANY],
    ['a 4097 x 200 WebP', () => grey(4097, 200).webp().toBuffer(), 'logo.webp', TOO_MANY],
    [
      'a lossless 4097 x 200 WebP',
      () => grey(4097, 200).webp({ lossless: true }).toBuffer(),
      'logo.webp',
      TOO_MANY,
    ],
    [
      'a 4097 x 200 WebP with alpha (extended format)',
      () => grey(4097, 200).ensureAlpha(0.5).webp().toBuffer(),
      'logo.webp',
      TOO_MANY,
    ],
    ['a 33 x 1 PNG', () => grey(33, 1).png().toBuffer(), 'logo.png', TOO_NARROW],
    ['a 1 x 33 JPEG', () => grey(1, 33).jpeg().toBuffer(), 'logo.jpg', TOO_NARROW],
    ['a 3300 x 100 WebP', () => grey(3300, 100).webp().toBuffer(), 'logo.webp', TOO_NARROW],
  ]
  for (const [what, make, filename, message] of refused) {
    test(`${what} is refused with 422 on file from its header, without waiting for the lane`, async ({
      client,
      assert,
      cleanup,
    }) => {
      const admin = await signedInMember('administrator')
      const upload = await make()
      const letGo = holdTheLane()
      cleanup(letGo)

      const response = await uploadLogo(client, admin, upload, { filename })
      response.assertStatus(422)
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
      assert.deepEqual(response.body().errors, { file: [message] })
      // Answered while every place was held: it never queued.
      const { queued } = await laneGauges()
      assert.equal(queued, 0)
      assert.isNull(await storedLogo(admin.merchant.id))
    })
  }

  const accepted: Array<[string, () => Promise<Buffer>, string, [number, number]]> = [
    [
      'a 4096 x 128 PNG (the longest side, at 32:1)',
      () => grey(4096, 128).png().toBuffer(),
      'logo.png',
      [4096, 128],
    ],
    ['a 1 x 32 JPEG', () => grey(1, 32).jpeg().toBuffer(), 'logo.jpg', [1, 32]],
    ['a 128 x 4096 WebP', () => grey(128, 4096).webp().toBuffer(), 'logo.webp', [128, 4096]],
  ]
  for (const [what, make, filename, [width, height]] of accepted) {
    test(`${what} is within the bounds and stored`, async ({ client, assert }) => {
      const admin = await signedInMember('administrator')
      const response = await uploadLogo(client, admin, await make(), { filename })
      response.assertStatus(200)
      const stored = await sharp((await storedLogo(admin.merchant.id))!).metadata()
      assert.deepEqual([stored.width, stored.height], [width, height])
    }).timeout(300_000)
  }
})
