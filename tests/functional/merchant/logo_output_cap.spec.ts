/*
| issue 21 › A stored logo never exceeds the 2,048 KB cap (portal-api.md › Merchant
| and logo: max 2,048 KB). Re-encoding can make an image larger than the upload was:
| such an image is stored with its smaller encoding, or scaled down until it fits:
| a valid image within the bounds is never refused for its re-encoded size (issue 38 › 7).
*/
import { test } from '@japa/runner'
import sharp, { type Sharp } from 'sharp'
import db from '@adonisjs/lucid/services/db'
import drive from '@adonisjs/drive/services/main'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { clearLogoStorage, uploadLogo } from '#tests/helpers/merchant'
import { overCapOnceReencoded, webpTooDetailedForTheCap } from '#tests/helpers/images'
import { LOGO_MAX_BYTES } from '#services/merchants/logo_image'

async function storedLogo(merchantId: number): Promise<Buffer | null> {
  const row = await db.from('merchants').where('id', merchantId).select('logo_path').first()
  return row.logo_path ? Buffer.from(await drive.use('fs').getBytes(row.logo_path)) : null
}

/** The encoding a logo gets when it fits (app/services/merchants/logo_encoder.ts). */
const USUAL: Record<'png' | 'jpeg' | 'webp', (image: Sharp) => Sharp> = {
  png: (image) => image.png({ compressionLevel: 9 }),
  jpeg: (image) => image.jpeg({ quality: 90, mozjpeg: true }),
  webp: (image) => image.webp({ quality: 90 }),
}

// Megapixel images: seconds of work each, longer on a busy host (the encoder runs at a
// lower priority), hence the longer timeouts.
test.group('POST /portal/merchant/logo never stores more than 2,048 KB', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  for (const format of ['webp', 'jpeg', 'png'] as const) {
    test(`a ${format} whose usual re-encoding is over the cap is stored within it`, async ({
      client,
      assert,
    }) => {
      const admin = await signedInMember('administrator')
      const upload = await overCapOnceReencoded[format]()
      assert.isAtMost(upload.length, LOGO_MAX_BYTES)
      const usualCopy = await USUAL[format](sharp(upload)).toBuffer()
      assert.isAbove(usualCopy.length, LOGO_MAX_BYTES)

      const response = await uploadLogo(client, admin, upload, { filename: `logo.${format}` })
      response.assertStatus(200)
      const stored = (await storedLogo(admin.merchant.id))!
      assert.isAtMost(stored.length, LOGO_MAX_BYTES)
      const [original, copy] = await Promise.all([
        sharp(upload).metadata(),
        sharp(stored).metadata(),
      ])
      assert.equal(copy.format, format)
      assert.deepEqual([copy.width, copy.height], [original.width, original.height])
      if (format === 'png') {
        // PNG stays lossless: the same pixels.
        const pixels = (image: Buffer) => sharp(image).removeAlpha().raw().toBuffer()
        const [storedPixels, uploadedPixels] = await Promise.all([pixels(stored), pixels(upload)])
        assert.isTrue(storedPixels.equals(uploadedPixels))
      }
    }).timeout(300_000)
  }

  test('a valid WebP whose re-encodings are all over the cap is stored, scaled down to fit, its aspect ratio kept (issue 38 › 7)', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    // Noise at quality 1: well under the cap, and several times over it once re-encoded.
    const upload = await webpTooDetailedForTheCap()
    assert.isAtMost(upload.length, LOGO_MAX_BYTES)
    const smallerCopy = await sharp(upload).webp({ quality: 50 }).toBuffer()
    assert.isAbove(smallerCopy.length, LOGO_MAX_BYTES)

    const response = await uploadLogo(client, admin, upload, { filename: 'logo.webp' })
    response.assertStatus(200)
    const stored = (await storedLogo(admin.merchant.id))!
    assert.isAtMost(stored.length, LOGO_MAX_BYTES)
    const [original, copy] = await Promise.all([sharp(upload).metadata(), sharp(stored).metadata()])
    assert.equal(copy.format, 'webp')
    assert.isBelow(copy.width!, original.width!)
    assert.approximately(copy.width! / copy.height!, original.width! / original.height!, 0.01)
  }).timeout(300_000)
})
