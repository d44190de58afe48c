/*
| POST /portal/merchant/logo reads its multipart body itself (app/http/single_file_upload.ts):
| every part name is an ordinary name, Object.prototype members included; the part
| limit, the merchant selector and a client that goes away mid-upload.
*/
import { test } from '@japa/runner'
import type { ApiResponse } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { captureLogs } from '#tests/helpers/logs'
import { clearLogoStorage, LOGO, postLogoMultipart, uploadLogo } from '#tests/helpers/merchant'
import { tinyPng } from '#tests/helpers/images'
import { connectToServer, writeHeadUntilContinued } from '#tests/helpers/test_server'
import { eventually, REQUEST_MS } from '#tests/helpers/server_process'

/** Part names that are members of Object.prototype, bare or with brackets. */
const PROTOTYPE_NAMES: Array<[name: string, reportedAs: string]> = [
  ['constructor', 'constructor'],
  ['__proto__', '__proto__'],
  ['toString', 'toString'],
  ['hasOwnProperty', 'hasOwnProperty'],
  ['__proto__[]', '__proto__'],
  ['constructor[prototype]', 'constructor'],
]

async function storedKey(merchantId: number): Promise<string | null> {
  const row = await db.from('merchants').where('id', merchantId).select('logo_path').first()
  return row.logo_path
}

/** POSTs a multipart body built here, byte for byte (an empty filename is kept). */
async function postParts(
  bearer: string,
  parts: Array<{ name: string; filename: string; bytes: Buffer }>
) {
  const boundary = 'PartsBoundary7MA4YWxk'
  const body = Buffer.concat([
    ...parts.flatMap((part) => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; ` +
          `filename="${part.filename}"\r\nContent-Type: image/png\r\n\r\n`
      ),
      part.bytes,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ])
  return postLogoMultipart(bearer, boundary, body)
}

/** The sorted names of a 422 VALIDATION_ERROR's field errors. */
function refusedFields(response: ApiResponse) {
  if (response.status() !== 422 || response.body().error_code !== 'VALIDATION_ERROR') {
    throw new Error(`expected 422 VALIDATION_ERROR, got ${response.status()}`)
  }
  return Object.keys(response.body().errors).sort()
}

test.group('POST /portal/merchant/logo › part names', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  test('a multipart part named after an Object.prototype member is an unlisted field (422), never a crash', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const png = await tinyPng()
    const part = { filename: 'ok.png', contentType: 'image/png' }
    for (const [name, reportedAs] of PROTOTYPE_NAMES) {
      const notAllowed = [`The ${reportedAs} field is not allowed.`]

      const alone = await client
        .post(LOGO())
        .header('Authorization', admin.bearer)
        .file(name, png, part)
      assert.deepEqual(refusedFields(alone), [reportedAs, 'file'].sort(), name)
      assert.isTrue(Object.hasOwn(alone.body().errors, reportedAs), name)
      assert.deepEqual(alone.body().errors[reportedAs], notAllowed, name)
      assert.deepEqual(alone.body().errors.file, ['The file field is required.'], name)

      const besideFile = await uploadLogo(client, admin, png).file(name, png, part)
      assert.deepEqual(refusedFields(besideFile), [reportedAs], name)
      assert.deepEqual(besideFile.body().errors[reportedAs], notAllowed, name)

      const textField = await uploadLogo(client, admin, png, { fields: { [name]: 'x' } })
      assert.deepEqual(refusedFields(textField), [reportedAs], name)
      assert.deepEqual(textField.body().errors[reportedAs], notAllowed, name)

      assert.isNull(await storedKey(admin.merchant.id), name)
    }
    // The server is still there, and a valid upload goes through.
    const valid = await uploadLogo(client, admin, png)
    valid.assertStatus(200)
    assert.isNotNull(await storedKey(admin.merchant.id))
  })

  test('up to 20 parts are read and each extra one is refused by name; a 21st part is refused', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const twenty = uploadLogo(client, admin, await tinyPng())
    for (let index = 0; index < 19; index++) twenty.field(`f${index}`, 'x')
    const response = await twenty
    const expected = Array.from({ length: 19 }, (_, index) => `f${index}`).sort()
    assert.deepEqual(refusedFields(response), expected)

    const twentyOne = uploadLogo(client, admin, await tinyPng())
    for (let index = 0; index < 20; index++) twentyOne.field(`f${index}`, 'x')
    const refused = await twentyOne
    assert.deepEqual(refused.body().errors, { file: ['The multipart body is malformed.'] })
    assert.isNull(await storedKey(admin.merchant.id))
  })

  test('a bracketed merchant selector naming another merchant is 403; its own merchant is 422', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const other = await uploadLogo(client, admin, await tinyPng(), {
      fields: { 'merchant[id]': String(admin.merchant.id + 1000) },
    })
    other.assertStatus(403)
    assert.equal(other.body().error_code, 'MERCHANT_SCOPE_MISMATCH')
    const own = await uploadLogo(client, admin, await tinyPng(), {
      fields: { 'merchant[id]': String(admin.merchant.id) },
    })
    assert.deepEqual(own.body().errors, { merchant: ['The merchant field is not allowed.'] })
    assert.isNull(await storedKey(admin.merchant.id))
  })

  test('two file values under file, or file[] alone, are refused on file', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const png = await tinyPng()
    const part = { filename: 'ok.png', contentType: 'image/png' }
    const withText = await uploadLogo(client, admin, png, { fields: { file: 'x' } })
    assert.deepEqual(withText.body().errors, { file: ['Send exactly one file.'] })
    const bracketed = await client
      .post(LOGO())
      .header('Authorization', admin.bearer)
      .file('file[]', png, part)
    assert.deepEqual(bracketed.body().errors, { file: ['The file field must be a file.'] })
    // A value under file that is not a file (no filename) is one more value of file.
    const noFilename = await uploadLogo(client, admin, png).file('file', Buffer.alloc(0), {
      filename: '',
      contentType: 'application/octet-stream',
    })
    assert.deepEqual(noFilename.body().errors, { file: ['Send exactly one file.'] })
  })

  test('a part with an empty filename is a value that is not a file', async ({ assert }) => {
    const admin = await signedInMember('administrator')
    const empty = { name: 'file', filename: '', bytes: Buffer.alloc(0) }
    const alone = await postParts(admin.bearer, [empty])
    assert.equal(alone.status, 422)
    assert.deepEqual(alone.body.errors, { file: ['The file field must be a file.'] })
    const png = { name: 'file', filename: 'logo.png', bytes: await tinyPng() }
    const withFile = await postParts(admin.bearer, [png, empty])
    assert.deepEqual(withFile.body.errors, { file: ['Send exactly one file.'] })
    const elsewhere = await postParts(admin.bearer, [png, { ...empty, name: 'constructor' }])
    assert.deepEqual(elsewhere.body.errors, {
      constructor: ['The constructor field is not allowed.'],
    })
  })

  test('a client that goes away mid-upload is logged as an abort and the server carries on', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const logs = captureLogs()
    try {
      const socket = await connectToServer()
      await writeHeadUntilContinued(
        socket,
        `POST ${LOGO()} HTTP/1.1\r\n` +
          `Host: ${process.env.HOST}\r\n` +
          `Authorization: ${admin.bearer}\r\n` +
          'Content-Type: multipart/form-data; boundary=XYZ\r\n' +
          'Expect: 100-continue\r\n' +
          'Content-Length: 100000\r\n\r\n'
      )
      // Part of the file is sent (handed to the connection) before the client goes away.
      await new Promise((resolve) =>
        socket.write(
          '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n' +
            'Content-Type: image/png\r\n\r\n' +
            'x'.repeat(1000),
          resolve
        )
      )
      socket.destroy()

      let line: string | undefined
      await eventually(
        async () => {
          line = logs.lines.find(
            (candidate) =>
              candidate.includes('request aborted by the client') ||
              candidate.includes('unexpected failure')
          )
          return line !== undefined
        },
        'the aborted upload logged',
        { every: 20, within: REQUEST_MS }
      )
      assert.include(line ?? '', 'request aborted by the client')
    } finally {
      logs.restore()
    }
    const valid = await uploadLogo(client, admin, await tinyPng())
    valid.assertStatus(200)
  })
})
