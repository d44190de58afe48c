/*
| issue 38 › 6: an animated PNG (file-type says image/apng) is a PNG: it is accepted
| and stored with its first frame only, as an animated WebP is.
*/
import { test } from '@japa/runner'
import sharp from 'sharp'
import { fileTypeFromBuffer } from 'file-type'
import db from '@adonisjs/lucid/services/db'
import drive from '@adonisjs/drive/services/main'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { clearLogoStorage, uploadLogo } from '#tests/helpers/merchant'
import { animatedPng, pngChunkTypes } from '#tests/helpers/images'

test.group('POST /portal/merchant/logo takes an animated PNG', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  test('an animated PNG is stored as a still PNG of its first frame', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const upload = await animatedPng()
    const detected = await fileTypeFromBuffer(upload)
    assert.equal(detected?.mime, 'image/apng')

    const response = await uploadLogo(client, admin, upload, { filename: 'logo.png' })
    response.assertStatus(200)
    const row = await db.from('merchants').where('id', admin.merchant.id).first()
    const stored = Buffer.from(await drive.use('fs').getBytes(row.logo_path))
    assert.match(row.logo_path, /\.png$/)
    assert.notIncludeMembers(pngChunkTypes(stored), ['acTL', 'fcTL', 'fdAT'])
    const { data, info } = await sharp(stored).raw().toBuffer({ resolveWithObject: true })
    assert.deepEqual([info.width, info.height], [16, 8])
    // The first frame is red; the second, blue, is gone.
    assert.deepEqual([...data.subarray(0, 3)], [255, 0, 0])
  })
})
