/*
| DRIVE_DISK=s3 (decisions.md §3; portal-api.md › Merchant and logo): `node ace
| demo:seed` run as a separate process against an in-test S3 endpoint stores the demo
| logo through the S3 protocol under the merchant's prefix, with its content type and
| immutable cache header, and a second run finds it there. Without the S3 variables
| the application refuses to boot.
*/
import { spawn } from 'node:child_process'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from '@japa/runner'
import sharp from 'sharp'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'

interface StoredObject {
  body: Buffer
  headers: IncomingMessage['headers']
}

/** Just enough of S3 (path-style PUT, HEAD, GET, DELETE of objects) to watch the calls. */
async function fakeS3() {
  const objects = new Map<string, StoredObject>()
  const calls: string[] = []
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url!, 'http://s3').pathname)
    calls.push(`${request.method} ${path}`)
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const object = objects.get(path)
    if (request.method === 'PUT') {
      objects.set(path, { body: Buffer.concat(chunks), headers: request.headers })
      response.writeHead(200, { ETag: '"etag"' }).end()
    } else if (request.method === 'DELETE') {
      objects.delete(path)
      response.writeHead(204).end()
    } else if (!object) {
      response.writeHead(404, { 'Content-Type': 'application/xml' })
      response.end(request.method === 'HEAD' ? undefined : '<Error><Code>NoSuchKey</Code></Error>')
    } else {
      response.writeHead(200, {
        'Content-Type': String(object.headers['content-type']),
        'Content-Length': object.body.length,
        'ETag': '"etag"',
        'Last-Modified': new Date().toUTCString(),
      })
      response.end(request.method === 'HEAD' ? undefined : object.body)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    objects,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

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
      reject(new Error(`ace ${args.join(' ')} did not exit within 60 s:\n${output}`))
    }, 60_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

test.group('DRIVE_DISK=s3', (group) => {
  group.each.setup(() => resetState())

  test('logos are stored through S3 under the merchant prefix, typed and immutable', async ({
    assert,
    cleanup,
  }) => {
    const s3 = await fakeS3()
    cleanup(s3.close)
    const env = {
      DRIVE_DISK: 's3',
      AWS_ACCESS_KEY_ID: 'test-access-key',
      AWS_SECRET_ACCESS_KEY: 'test-secret-key',
      AWS_REGION: 'us-east-1',
      S3_BUCKET: 'logos-bucket',
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
    }
    const first = await ace(['demo:seed'], env)
    assert.equal(first.code, 0, first.output)

    const merchant = await db.from('merchants').firstOrFail()
    assert.match(merchant.logo_path, new RegExp(`^logos/${merchant.id}/[0-9a-z]{26}\\.png$`))
    const stored = s3.objects.get(`/logos-bucket/${merchant.logo_path}`)!
    assert.exists(stored)
    assert.equal(stored.headers['content-type'], 'image/png')
    assert.equal(stored.headers['cache-control'], 'public, max-age=31536000, immutable')
    const metadata = await sharp(stored.body).metadata()
    assert.equal(metadata.format, 'png')

    // A second run sees the object (HEAD) and keeps it.
    const second = await ace(['demo:seed'], env)
    assert.equal(second.code, 0, second.output)
    const again = await db.from('merchants').where('id', merchant.id).firstOrFail()
    assert.equal(again.logo_path, merchant.logo_path)
    assert.include(s3.calls, `HEAD /logos-bucket/${merchant.logo_path}`)
    assert.lengthOf([...s3.objects.keys()], 1)
  }).timeout(120_000)

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
  }).timeout(120_000)
})
