/*
| portal-api.md › Merchant and logo: GET, POST and DELETE /portal/merchant/logo.
*/
import { test } from '@japa/runner'
import sharp from 'sharp'
import db from '@adonisjs/lucid/services/db'
import drive from '@adonisjs/drive/services/main'
import { appUrl } from '#config/app'
import { resetState } from '#tests/helpers/database'
import { signedInMember, teammate } from '#tests/helpers/portal'
import { clearLogoStorage, LOGO, MERCHANT, pathOf, uploadLogo } from '#tests/helpers/merchant'
import {
  decompressionBomb,
  htmlPage,
  jpegThenZip,
  jpegWithGps,
  oversizeFile,
  pngThenHtml,
  pngWithHtmlChunk,
  svgLogo,
  textFile,
  tinyGif,
  tinyJpeg,
  tinyPng,
  tinyWebp,
  truncatedPng,
  webpThenHtml,
  zeroWidthPng,
} from '#tests/helpers/images'

async function storedKey(merchantId: number): Promise<string | null> {
  const row = await db.from('merchants').where('id', merchantId).select('logo_path').first()
  return row.logo_path
}

test.group('POST /portal/merchant/logo accepts real PNG, JPEG and WebP images', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  for (const [format, make, contentType, extension] of [
    ['png', tinyPng, 'image/png', 'png'],
    ['jpeg', tinyJpeg, 'image/jpeg', 'jpg'],
    ['webp', tinyWebp, 'image/webp', 'webp'],
  ] as const) {
    test(`a ${format} is stored, re-encoded as ${format}, and served with its content type`, async ({
      client,
      assert,
    }) => {
      const admin = await signedInMember('administrator')
      const response = await uploadLogo(client, admin, await make(), {
        filename: `../../etc/${format}.exe`,
        contentType: 'application/octet-stream',
      })
      response.assertStatus(200)
      assert.deepEqual(Object.keys(response.body().data), ['url'])
      const url = response.body().data.url as string
      assert.isTrue(url.startsWith(`${appUrl}/media/logos/${admin.merchant.id}/`))
      // Server-generated name under the merchant's prefix; the client's filename plays no part.
      const key = (await storedKey(admin.merchant.id))!
      assert.match(key, new RegExp(`^logos/${admin.merchant.id}/[0-9a-z]{26}\\.${extension}$`))
      assert.notInclude(key, 'etc')

      const served = await client.get(pathOf(url))
      served.assertStatus(200)
      served.assertHeader('content-type', contentType)
      served.assertHeader('x-content-type-options', 'nosniff')
      served.assertHeader('cache-control', 'public, max-age=31536000, immutable')
      const metadata = await sharp(await drive.use('fs').getBytes(key)).metadata()
      assert.equal(metadata.format, format)
      assert.equal(metadata.width, 8)
    })
  }

  test('the re-encoded copy carries no EXIF: GPS coordinates are not published', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const original = await jpegWithGps()
    const originalMetadata = await sharp(original).metadata()
    assert.isDefined(originalMetadata.exif)
    const response = await uploadLogo(client, admin, original, { filename: 'photo.jpg' })
    response.assertStatus(200)
    const key = await storedKey(admin.merchant.id)
    const stored = Buffer.from(await drive.use('fs').getBytes(key!))
    const metadata = await sharp(stored).metadata()
    assert.isUndefined(metadata.exif)
    assert.isUndefined(metadata.xmp)
    assert.notInclude(stored.toString('latin1'), 'PhoneMaker')
    assert.notInclude(stored.toString('latin1'), 'Exif')
  })

  test('the logo URL appears in GET /portal/merchant/logo and in the merchant resource', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const uploaded = await uploadLogo(client, admin, await tinyPng())
    const url = uploaded.body().data.url
    const logo = await client.get(LOGO()).header('Authorization', admin.bearer)
    logo.assertStatus(200)
    assert.deepEqual(logo.body().data, { url })
    const merchant = await client.get(MERCHANT()).header('Authorization', admin.bearer)
    assert.equal(merchant.body().data.logo_url, url)
  })

  test('replacing a logo removes the old object after the commit', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    await uploadLogo(client, admin, await tinyPng())
    const first = (await storedKey(admin.merchant.id))!
    const second = await uploadLogo(client, admin, await tinyWebp())
    second.assertStatus(200)
    const current = (await storedKey(admin.merchant.id))!
    assert.notEqual(current, first)
    assert.isFalse(await drive.use('fs').exists(first))
    assert.isTrue(await drive.use('fs').exists(current))
    const served = await client.get(pathOf(second.body().data.url))
    served.assertStatus(200)
  })

  test('the upload is audited with the merchant as target and no file content', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    await uploadLogo(client, admin, await tinyPng())
    const [row] = await db.from('audit_logs').where('action', 'merchant.logo.update')
    assert.equal(row.outcome, 'success')
    assert.equal(Number(row.actor_user_id), admin.user.id)
    assert.equal(row.target_id, String(admin.merchant.id))
    assert.equal(row.metadata.format, 'png')
  })
})

test.group('POST /portal/merchant/logo refuses anything else with 422 on file', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  const refused: Array<[string, () => Promise<Buffer> | Buffer, string, RegExp]> = [
    ['a text file named .png', textFile, 'notes.png', /PNG, JPEG or WebP/],
    ['a GIF', tinyGif, 'anim.png', /PNG, JPEG or WebP/],
    ['an SVG', svgLogo, 'logo.png', /PNG, JPEG or WebP/],
    ['an HTML page', htmlPage, 'logo.png', /PNG, JPEG or WebP/],
    ['a PNG with HTML appended (polyglot)', pngThenHtml, 'logo.png', /other content/],
    ['a PNG with HTML in a text chunk (polyglot)', pngWithHtmlChunk, 'logo.png', /other content/],
    ['a JPEG with an archive appended (polyglot)', jpegThenZip, 'logo.jpg', /other content/],
    ['a WebP with HTML appended (polyglot)', webpThenHtml, 'logo.webp', /other content/],
    ['a truncated PNG', truncatedPng, 'logo.png', /truncated/],
    ['a zero-width PNG', zeroWidthPng, 'logo.png', /decoded|no pixels/],
    ['a file over 2,048 KB', oversizeFile, 'logo.png', /2,048 KB/],
    ['a decompression bomb', decompressionBomb, 'logo.png', /too many pixels/],
  ]
  for (const [what, make, filename, message] of refused) {
    test(`${what} is refused and nothing is stored`, async ({ client, assert }) => {
      const admin = await signedInMember('administrator')
      const response = await uploadLogo(client, admin, await make(), { filename })
      response.assertStatus(422)
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
      assert.deepEqual(Object.keys(response.body().errors), ['file'])
      assert.match(response.body().errors.file[0], message)
      assert.isNull(await storedKey(admin.merchant.id))
    })
  }

  test('an upload far over the limit is cut off while streaming: 422 on file, not 413', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const response = await uploadLogo(client, admin, Buffer.alloc(8 * 1024 * 1024, 0x42))
    response.assertStatus(422)
    assert.deepEqual(response.body().errors, {
      file: ['The file must not be larger than 2,048 KB.'],
    })
    assert.isNull(await storedKey(admin.merchant.id))
  })

  test('an extra multipart field is refused by name', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const response = await uploadLogo(client, admin, await tinyPng(), {
      fields: { filename: 'x.png' },
    })
    response.assertStatus(422)
    assert.deepEqual(response.body().errors, { filename: ['The filename field is not allowed.'] })
    assert.isNull(await storedKey(admin.merchant.id))
  })

  test('an extra file part is refused by name', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const response = await uploadLogo(client, admin, await tinyPng()).file(
      'thumbnail',
      await tinyPng(),
      { filename: 't.png', contentType: 'image/png' }
    )
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['thumbnail'])
  })

  test('two file parts named file are refused', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const response = await uploadLogo(client, admin, await tinyPng()).file(
      'file',
      await tinyPng(),
      {
        filename: 'b.png',
        contentType: 'image/png',
      }
    )
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['file'])
  })

  test('file is required, and a text field named file is not a file', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const empty = await client.post(LOGO()).header('Authorization', admin.bearer)
    empty.assertStatus(422)
    assert.deepEqual(empty.body().errors, { file: ['The file field is required.'] })
    const text = await client
      .post(LOGO())
      .header('Authorization', admin.bearer)
      .field('file', 'iVBORw0KGgo=')
    text.assertStatus(422)
    assert.deepEqual(text.body().errors, { file: ['The file field must be a file.'] })
  })

  test('a query string field is refused', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const response = await uploadLogo(client, admin, await tinyPng()).qs({ name: 'x' })
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['name'])
  })

  test('a malformed multipart body is a 422, never a 500', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const response = await client
      .post(LOGO())
      .header('Authorization', admin.bearer)
      .unsafeJson(
        '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc'
      )
      .type('multipart/form-data; boundary=XYZ')
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['file'])
  })

  test('multipart oddities are 422 on a field, never a 500', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const noBoundary = await client
      .post(LOGO())
      .header('Authorization', admin.bearer)
      .unsafeJson('--x\r\n')
      .type('multipart/form-data')
    assert.equal(noBoundary.status(), 422)
    const manyFields = uploadLogo(client, admin, await tinyPng())
    for (let index = 0; index < 30; index++) manyFields.field(`f${index}`, 'x')
    const many = await manyFields
    assert.equal(many.status(), 422)
    const unicodeName = await uploadLogo(client, admin, await tinyPng(), {
      filename: '\u00e9\u0000/../\ud83d\ude00.png',
    })
    assert.equal(unicodeName.status(), 200)
  })

  test('a JSON body is 415 UNSUPPORTED_MEDIA_TYPE', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const response = await client
      .post(LOGO())
      .header('Authorization', admin.bearer)
      .json({ file: 'iVBORw0KGgo=' })
    response.assertStatus(415)
    assert.equal(response.body().error_code, 'UNSUPPORTED_MEDIA_TYPE')
  })

  test('a merchant selector naming another merchant is 403 MERCHANT_SCOPE_MISMATCH', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const response = await uploadLogo(client, admin, await tinyPng(), {
      fields: { merchant_id: String(admin.merchant.id + 1000) },
    })
    response.assertStatus(403)
    assert.equal(response.body().error_code, 'MERCHANT_SCOPE_MISMATCH')
    assert.isNull(await storedKey(admin.merchant.id))
  })
})

test.group('GET /portal/merchant/logo', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  test('is null when the merchant has no logo', async ({ client, assert }) => {
    const developer = await signedInMember('developer')
    const response = await client.get(LOGO()).header('Authorization', developer.bearer)
    response.assertStatus(200)
    assert.deepEqual(response.body(), { success: true, message: 'Success', data: { url: null } })
  })

  test('is null when the stored object is missing', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    await uploadLogo(client, admin, await tinyPng())
    const key = await storedKey(admin.merchant.id)
    await drive.use('fs').delete(key!)
    const response = await client.get(LOGO()).header('Authorization', admin.bearer)
    assert.isNull(response.body().data.url)
    const merchant = await client.get(MERCHANT()).header('Authorization', admin.bearer)
    assert.isNull(merchant.body().data.logo_url)
  })

  test('is null when the stored path is not a logo of this merchant', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const other = await signedInMember('administrator')
    await uploadLogo(client, other, await tinyPng())
    for (const path of [await storedKey(other.merchant.id), '../config/app.ts', 'logos/x']) {
      await db.from('merchants').where('id', admin.merchant.id).update({ logo_path: path })
      const response = await client.get(LOGO()).header('Authorization', admin.bearer)
      assert.isNull(response.body().data.url)
    }
  })

  test('the media route serves nothing but stored logos', async ({ client }) => {
    for (const path of [
      '/media/logos/1/01hzzzzzzzzzzzzzzzzzzzzzzz.png',
      '/media/logos/1/..%2F..%2Fpackage.json',
      '/media/logos/1/01HZZZZZZZZZZZZZZZZZZZZZZZ.svg',
      '/media/logos/0/01hzzzzzzzzzzzzzzzzzzzzzzz.png',
    ]) {
      const response = await client.get(path)
      response.assertStatus(404)
    }
  })
})

test.group('DELETE /portal/merchant/logo', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  test('removes the logo (204, empty body) and its object after the commit', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    await uploadLogo(client, admin, await tinyPng())
    const key = (await storedKey(admin.merchant.id))!
    const response = await client.delete(LOGO()).header('Authorization', admin.bearer)
    response.assertStatus(204)
    assert.equal(response.text(), '')
    assert.isNull(await storedKey(admin.merchant.id))
    assert.isFalse(await drive.use('fs').exists(key))
    const logo = await client.get(LOGO()).header('Authorization', admin.bearer)
    assert.isNull(logo.body().data.url)
  })

  test('is idempotent when no logo exists', async ({ client }) => {
    const admin = await signedInMember('administrator')
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await client.delete(LOGO()).header('Authorization', admin.bearer)
      response.assertStatus(204)
    }
  })

  test('any body or query field is refused with 422', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    await uploadLogo(client, admin, await tinyPng())
    const body = await client.delete(LOGO()).header('Authorization', admin.bearer).json({ x: 1 })
    body.assertStatus(422)
    assert.deepEqual(Object.keys(body.body().errors), ['x'])
    const query = await client.delete(LOGO()).header('Authorization', admin.bearer).qs({ y: '1' })
    query.assertStatus(422)
    assert.deepEqual(Object.keys(query.body().errors), ['y'])
    assert.isNotNull(await storedKey(admin.merchant.id))
  })

  test('a developer is refused 403 FORBIDDEN and the logo stays', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    await uploadLogo(client, admin, await tinyPng())
    const developer = await teammate(admin, 'developer')
    const response = await client.delete(LOGO()).header('Authorization', developer.bearer)
    response.assertStatus(403)
    assert.equal(response.body().error_code, 'FORBIDDEN')
    assert.isNotNull(await storedKey(admin.merchant.id))
  })
})
