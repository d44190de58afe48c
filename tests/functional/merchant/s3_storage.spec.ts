/*
| DRIVE_DISK=s3 (decisions.md §3; portal-api.md › Merchant and logo), against an
| S3-protocol server the test starts (tests/helpers/s3_server.ts: s3rver behind a gate
| that refuses unsigned requests and checks presigned signatures, as a private bucket
| does). The service runs as its own process with the s3 disk, since the disk is chosen
| at boot: uploads, replacements and deletions reach the bucket through the S3 protocol,
| logo URLs are presigned URLs that serve the image, or S3_CDN_URL/<key> when a CDN is
| configured. `node ace demo:seed` stores the demo logo there too. Without the S3
| variables the application refuses to boot.
*/
import { spawn } from 'node:child_process'
import { test } from '@japa/runner'
import sharp from 'sharp'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { tinyPng, tinyWebp } from '#tests/helpers/images'
import {
  LOGO,
  MERCHANT,
  callProcess,
  logoPathOf,
  uploadLogoToProcess,
} from '#tests/helpers/merchant'
import { signedInMember } from '#tests/helpers/portal'
import { startS3Server, type S3Server } from '#tests/helpers/s3_server'
import {
  READY_MS,
  REQUEST_MS,
  startProductionServer,
  type ServerProcess,
} from '#tests/helpers/server_process'

const IMMUTABLE = 'public, max-age=31536000, immutable'

/** Runs `node ace <args>` in a fresh process with `env` added; bounded. */
function ace(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['ace.js', ...args], {
      cwd: app.makePath(),
      env: { ...process.env, NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`ace ${args.join(' ')} did not exit within ${READY_MS} ms:\n${output}`))
    }, READY_MS)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

/** Fetches a logo URL as a browser would: status, content type and bytes. */
async function fetchImage(url: string) {
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_MS) })
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
  }
}

test.group('DRIVE_DISK=s3 against an S3 server', (group) => {
  let s3: S3Server
  let server: ServerProcess
  group.setup(async () => {
    s3 = await startS3Server()
    server = await startProductionServer(s3.appEnv)
    return async () => {
      server.kill()
      await s3.close()
    }
  })
  group.each.setup(() => resetState())
  group.each.setup(() => s3.clear())

  test('an uploaded logo is stored in the bucket under the merchant prefix, typed and immutable', async ({
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const response = await uploadLogoToProcess(server, admin.bearer, await tinyPng(), 'image/png')
    assert.equal(response.status, 200, JSON.stringify(response.body))

    const key = (await logoPathOf(admin.merchant.id))!
    assert.match(key, new RegExp(`^logos/${admin.merchant.id}/[0-9a-z]{26}\\.png$`))
    assert.deepEqual(await s3.keys(), [key])
    const stored = (await s3.object(key))!
    assert.equal(stored.contentType, 'image/png')
    assert.equal(stored.cacheControl, IMMUTABLE)
    const metadata = await sharp(stored.bytes).metadata()
    assert.equal(metadata.format, 'png')
    assert.equal(metadata.width, 8)
  }).timeout(180_000)

  test('the logo URL is a presigned URL valid one hour that serves the stored image', async ({
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const uploaded = await uploadLogoToProcess(server, admin.bearer, await tinyPng(), 'image/png')
    assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body))
    const key = (await logoPathOf(admin.merchant.id))!
    const stored = (await s3.object(key))!

    const shown = await callProcess(server, LOGO(), admin.bearer)
    const profile = await callProcess(server, MERCHANT(), admin.bearer)
    for (const url of [uploaded.body.data.url, shown.body.data.url, profile.body.data.logo_url]) {
      const signed = new URL(url)
      assert.equal(signed.origin, s3.endpoint)
      assert.equal(signed.pathname, `/${s3.bucket}/${key}`)
      assert.equal(signed.searchParams.get('X-Amz-Expires'), '3600')
      const image = await fetchImage(url)
      assert.equal(image.status, 200)
      assert.equal(image.contentType, 'image/png')
      assert.isTrue(image.bytes.equals(stored.bytes))
    }

    // The bucket is private: without its signature the same address is refused.
    const unsigned = await fetchImage(`${s3.endpoint}/${s3.bucket}/${key}`)
    assert.equal(unsigned.status, 403)
  }).timeout(180_000)

  test('a replaced logo is a new object and the previous one is deleted from the bucket', async ({
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const first = await uploadLogoToProcess(server, admin.bearer, await tinyPng(), 'image/png')
    assert.equal(first.status, 200, JSON.stringify(first.body))
    const firstKey = (await logoPathOf(admin.merchant.id))!

    const second = await uploadLogoToProcess(server, admin.bearer, await tinyWebp(), 'image/webp')
    assert.equal(second.status, 200, JSON.stringify(second.body))
    const secondKey = (await logoPathOf(admin.merchant.id))!
    assert.notEqual(secondKey, firstKey)
    assert.match(secondKey, new RegExp(`^logos/${admin.merchant.id}/[0-9a-z]{26}\\.webp$`))
    assert.deepEqual(await s3.keys(), [secondKey])
    assert.equal((await s3.object(secondKey))!.contentType, 'image/webp')

    const image = await fetchImage(second.body.data.url)
    assert.equal(image.status, 200)
    assert.equal(image.contentType, 'image/webp')
    const stored = (await s3.object(secondKey))!
    assert.isTrue(image.bytes.equals(stored.bytes))
    // The first URL is still within its hour, but its object is gone.
    const previous = await fetchImage(first.body.data.url)
    assert.equal(previous.status, 404)
  }).timeout(180_000)

  test('a deleted logo is removed from the bucket and the merchant has none', async ({
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const uploaded = await uploadLogoToProcess(server, admin.bearer, await tinyPng(), 'image/png')
    assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body))
    assert.lengthOf(await s3.keys(), 1)

    const deleted = await callProcess(server, LOGO(), admin.bearer, { method: 'DELETE' })
    assert.equal(deleted.status, 204)
    assert.deepEqual(await s3.keys(), [])
    assert.isNull(await logoPathOf(admin.merchant.id))
    const shown = await callProcess(server, LOGO(), admin.bearer)
    assert.isNull(shown.body.data.url)
    const profile = await callProcess(server, MERCHANT(), admin.bearer)
    assert.isNull(profile.body.data.logo_url)
    const image = await fetchImage(uploaded.body.data.url)
    assert.equal(image.status, 404)
  }).timeout(180_000)

  test('demo:seed stores the demo logo in the bucket, and a second run keeps it', async ({
    assert,
  }) => {
    const first = await ace(['demo:seed'], s3.appEnv)
    assert.equal(first.code, 0, first.output)

    const merchant = await db.from('merchants').firstOrFail()
    assert.match(merchant.logo_path, new RegExp(`^logos/${merchant.id}/[0-9a-z]{26}\\.png$`))
    assert.deepEqual(await s3.keys(), [merchant.logo_path])
    const stored = (await s3.object(merchant.logo_path))!
    assert.equal(stored.contentType, 'image/png')
    assert.equal(stored.cacheControl, IMMUTABLE)
    const metadata = await sharp(stored.bytes).metadata()
    assert.equal(metadata.format, 'png')

    const second = await ace(['demo:seed'], s3.appEnv)
    assert.equal(second.code, 0, second.output)
    const again = await db.from('merchants').where('id', merchant.id).firstOrFail()
    assert.equal(again.logo_path, merchant.logo_path)
    assert.deepEqual(await s3.keys(), [merchant.logo_path])
  }).timeout(300_000)
})

test.group('DRIVE_DISK=s3 with S3_CDN_URL', (group) => {
  // With a path: S3_CDN_URL/<key> keeps it.
  const CDN = 'https://cdn.example.test/merchant-logos'
  let s3: S3Server
  let server: ServerProcess
  group.setup(async () => {
    s3 = await startS3Server()
    server = await startProductionServer({ ...s3.appEnv, S3_CDN_URL: CDN })
    return async () => {
      server.kill()
      await s3.close()
    }
  })
  group.each.setup(() => resetState())

  test('logo URLs are S3_CDN_URL/<key>, unsigned, for an object stored in the bucket', async ({
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const uploaded = await uploadLogoToProcess(server, admin.bearer, await tinyPng(), 'image/png')
    assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body))
    const key = (await logoPathOf(admin.merchant.id))!
    assert.deepEqual(await s3.keys(), [key])

    const shown = await callProcess(server, LOGO(), admin.bearer)
    const profile = await callProcess(server, MERCHANT(), admin.bearer)
    assert.equal(uploaded.body.data.url, `${CDN}/${key}`)
    assert.equal(shown.body.data.url, `${CDN}/${key}`)
    assert.equal(profile.body.data.logo_url, `${CDN}/${key}`)
  }).timeout(180_000)
})

test.group('DRIVE_DISK=s3 configuration', (group) => {
  group.each.setup(() => resetState())

  test('without the S3 variables the application refuses to boot, naming them', async ({
    assert,
  }) => {
    const result = await ace(['demo:seed'], {
      DRIVE_DISK: 's3',
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_REGION: '',
      S3_BUCKET: '',
    })
    assert.notEqual(result.code, 0)
    assert.include(result.output, 'DRIVE_DISK=s3 needs')
    assert.include(result.output, 'S3_BUCKET')
    assert.lengthOf(await db.from('merchants'), 0)
  }).timeout(300_000)
})
