/*
| Every call to the S3 logo store has a deadline (config/drive.ts S3_CALL_LIMITS,
| issue 38): a store that accepts connections and never answers, or answers with
| errors, fails an upload with 503 SERVICE_UNAVAILABLE (the dependency is not there
| right now), stores nothing, and leaves merchant reads answering, without a logo.
| The service runs as its own process with the s3 disk pointed at a store of the
| test's own. Nothing is timed: without a deadline, the request outlives the test's
| own bound (REQUEST_MS) and the test fails.
*/
import { createServer as createHttpServer } from 'node:http'
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net'
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { tinyPng } from '#tests/helpers/images'
import { MERCHANT, callProcess, logoPathOf, uploadLogoToProcess } from '#tests/helpers/merchant'
import { signedInMember } from '#tests/helpers/portal'
import { startProductionServer, type ServerProcess } from '#tests/helpers/server_process'

/** A store at 127.0.0.1:port; close() ends it and every connection it holds. */
interface FakeStore {
  port: number
  close(): Promise<void>
}

async function listening(server: Server, sockets: Set<Socket>): Promise<FakeStore> {
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Accepts connections, reads every byte, never answers. */
function silentStore() {
  const sockets = new Set<Socket>()
  return listening(
    createTcpServer((socket) => socket.on('data', () => {})),
    sockets
  )
}

/** Answers every request as S3 does when it fails: 500 InternalError. */
function failingStore() {
  const sockets = new Set<Socket>()
  const server = createHttpServer((request, response) => {
    request.resume()
    request.once('end', () => {
      response.writeHead(500, { 'Content-Type': 'application/xml' })
      response.end('<Error><Code>InternalError</Code><Message>We failed.</Message></Error>')
    })
  })
  return listening(server, sockets)
}

function s3Env(store: FakeStore) {
  return {
    DRIVE_DISK: 's3',
    AWS_ACCESS_KEY_ID: 'test-access-key',
    AWS_SECRET_ACCESS_KEY: 'test-secret-key',
    AWS_REGION: 'us-east-1',
    S3_BUCKET: 'logos',
    S3_ENDPOINT: `http://127.0.0.1:${store.port}`,
    S3_FORCE_PATH_STYLE: 'true',
  }
}

for (const [kind, start] of [
  ['that never answers', silentStore],
  ['that answers 500', failingStore],
] as const) {
  test.group(`DRIVE_DISK=s3 with a store ${kind}`, (group) => {
    let store: FakeStore
    let server: ServerProcess
    group.setup(async () => {
      store = await start()
      server = await startProductionServer(s3Env(store))
      return async () => {
        server.kill()
        await store.close()
      }
    })
    group.each.setup(() => resetState())

    test('an upload is 503 SERVICE_UNAVAILABLE within its deadline and stores nothing', async ({
      assert,
    }) => {
      const admin = await signedInMember('administrator')
      const response = await uploadLogoToProcess(server, admin.bearer, await tinyPng(), 'image/png')
      assert.equal(response.status, 503, JSON.stringify(response.body))
      assert.equal(response.body.error_code, 'SERVICE_UNAVAILABLE')
      assert.isNull(await logoPathOf(admin.merchant.id))
    }).timeout(120_000)

    test('the merchant is still read, without a logo URL', async ({ assert }) => {
      const admin = await signedInMember('administrator')
      const key = `logos/${admin.merchant.id}/${'0'.repeat(26)}.png`
      await db.from('merchants').where('id', admin.merchant.id).update({ logo_path: key })
      const response = await callProcess(server, MERCHANT(), admin.bearer)
      assert.equal(response.status, 200, JSON.stringify(response.body))
      assert.isNull(response.body.data.logo_url)
    }).timeout(120_000)
  })
}
