/*
| Upgrade checks of the framework and library internals app/platform relies on
| (app/platform/README.md lists each one, why, and what breaks if it changes). Each
| test fails when its internal is gone or has changed shape, so an upgrade of
| AdonisJS (its encrypter too), Lucid, knex, pg, the auth package, the limiter or
| Node that breaks one is found here, by name, rather than by a slower request or a
| wrong count.
| Covered elsewhere, against the library's own code on arbitrary input: the token
| value format (token_value.spec.ts), the timestamptz parser (pg_timestamptz.spec.ts),
| the request path histogram's exposition (request_path_histogram.spec.ts), the
| scrypt hashes (threaded_scrypt.spec.ts), the JSON serializer (serialize_json.spec.ts).
*/
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http'
import { once } from 'node:events'
import { test } from '@japa/runner'
import pg from 'pg'
import db from '@adonisjs/lucid/services/db'
import server from '@adonisjs/core/services/server'
import router from '@adonisjs/core/services/router'
import limiter from '@adonisjs/limiter/services/main'
import encryption from '@adonisjs/core/services/encryption'
import { defineConfig as defineHttpConfig } from '@adonisjs/core/http'
import BodyParserMiddleware from '@adonisjs/core/bodyparser_middleware'
import { DbAccessTokensProvider } from '@adonisjs/auth/access_tokens'
import { safeStringify } from '@poppinss/utils/json'
import { RateLimiterRedis } from 'rate-limiter-flexible'
import Merchant from '#models/merchant'
import { isCalledDirectly } from '#platform/server_middleware'
import {
  consumeInDatabase,
  LIBRARY_KEY_PREFIX,
  REDIS_INCREMENT_COMMAND,
} from '#platform/rate_limit_store'
import { bodyParser } from '#platform/body_parser'
import { parseTimestamptz } from '#platform/pg_timestamptz'
import { directQuery } from '#platform/direct_query'
import { acquirePgConnection, releasePgConnection } from '#platform/pg_connection'
import { responseStarted } from '#platform/socket_response'
import { hydrate } from '#platform/hydrate'
import settings from '#config/settings'
import { openTextFormat, textFormatKey } from '#platform/encrypter_text_format'

const uniqueKey = (name: string) => `upgrade_check:${name}:${process.pid}:${Date.now()}`

test.group('Platform internals: the HTTP server and router', () => {
  test('the server middleware list hands out the entries its stack calls (kernel)', ({
    assert,
  }) => {
    // start/kernel.ts rewrote an entry before boot; after boot the list comes from the
    // frozen stack, so the rewrite is there only if both are the same objects.
    assert.isTrue(server.getMiddlewareList().some(isCalledDirectly))
  })

  test('a route takes parsed named middleware objects and lists their names (register_endpoint)', ({
    assert,
  }) => {
    if (!router.commited) router.commit()
    const routes = Object.values(router.toJSON()).flat()
    const show = routes.find((route) => route.name === 'profile.show')
    assert.exists(show, 'route profile.show')
    const names = show!.middleware.all() ? [...show!.middleware.all()].map((one) => one.name) : []
    assert.include(names, 'portalAuth')
  })

  test('the body parser middleware is made once through the container and handles (ctx, next)', async ({
    assert,
  }) => {
    const parser = await bodyParser()
    assert.instanceOf(parser, BodyParserMiddleware)
    assert.strictEqual(await bodyParser(), parser)
    assert.equal(typeof parser.handle, 'function')
    assert.equal(parser.handle.length, 2)
  })

  test("the framework's default JSON serializer is safeStringify (serialize_json's fallback)", ({
    assert,
  }) => {
    assert.strictEqual(defineHttpConfig({}).serializeJSON, safeStringify)
  })

  test("Node keeps a connection's current response as socket._httpMessage", async ({ assert }) => {
    const seen: boolean[] = []
    const node = createServer((request: IncomingMessage, response) => {
      seen.push(responseStarted(request.socket))
      response.writeHead(200)
      response.flushHeaders()
      seen.push(responseStarted(request.socket))
      response.end()
    })
    node.listen(0, '127.0.0.1')
    await once(node, 'listening')
    const address = node.address()
    if (!address || typeof address === 'string') throw new Error('no port')
    try {
      const answer = httpRequest({ host: '127.0.0.1', port: address.port, path: '/' })
      answer.end()
      const [response] = (await once(answer, 'response')) as [IncomingMessage]
      response.resume()
      await once(response, 'end')
    } finally {
      node.close()
    }
    assert.deepEqual(seen, [false, true])
  })
})

test.group('Platform internals: the limiter store', () => {
  test('the PostgreSQL store and rate_limit_store count in the same rows', async ({ assert }) => {
    const key = uniqueKey('database')
    const library = limiter.use('database', { requests: 3, duration: '1 minute' })
    await library.consume(key)
    assert.isNull(await consumeInDatabase(key, 3))
    await library.consume(key)
    const retryAfter = await consumeInDatabase(key, 3)
    assert.isNumber(retryAfter)
    assert.isAbove(retryAfter!, 0)
    assert.equal(await library.remaining(key), 0)
    const [row] = await db.from('rate_limits').where('key', `${LIBRARY_KEY_PREFIX}:${key}`)
    assert.equal(row.points, 4)
    await db.from('rate_limits').where('key', row.key).delete()
  })

  test('the Redis store registers its increment script and calls it as rate_limit_store does', async ({
    assert,
  }) => {
    const defined: Array<[string, { numberOfKeys: number; lua: string }]> = []
    const calls: unknown[][] = []
    const fakeIoredis = {
      defineCommand: (name: string, definition: { numberOfKeys: number; lua: string }) =>
        defined.push([name, definition]),
      multi: () => ({}),
      [REDIS_INCREMENT_COMMAND]: async (...args: unknown[]) => {
        calls.push(args.flat())
        return [1, 60_000]
      },
    }
    const store = new RateLimiterRedis({ storeClient: fakeIoredis, points: 5, duration: 60 })
    const consumed = await store.consume('k')
    assert.equal(consumed.consumedPoints, 1)
    assert.lengthOf(defined, 1)
    assert.equal(defined[0][0], REDIS_INCREMENT_COMMAND)
    assert.equal(defined[0][1].numberOfKeys, 1)
    // The key, then points, window seconds, the limit's points and seconds, as strings.
    assert.deepEqual(calls, [[`${LIBRARY_KEY_PREFIX}:k`, '1', '60', '5', '60']])
  })
})

test.group('Platform internals: pg, knex and Lucid', () => {
  test('pg.types parses timestamptz with ours, and sessions write the UTC form it reads fast', async ({
    assert,
  }) => {
    assert.strictEqual(pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ), parseTimestamptz)
    const [row] = await directQuery<{ text: string; at: Date }>(
      undefined,
      `SELECT $1::timestamptz::text AS text, $1::timestamptz AS at`,
      ['2024-02-03 04:05:06.789+02']
    )
    assert.match(row.text, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00$/)
    assert.equal(row.at.toISOString(), '2024-02-03T02:05:06.789Z')
  })

  test("a named statement is prepared on the transaction's own connection (pg.Query reads name when sent)", async ({
    assert,
  }) => {
    const name = `upgrade_check_${process.pid}`
    await db.transaction(async (trx) => {
      const [row] = await directQuery<{ one: number }>(name, 'SELECT 1 AS one', [], trx)
      assert.equal(row.one, 1)
      const prepared = await trx.rawQuery(
        'SELECT name FROM pg_prepared_statements WHERE name = ?',
        [name]
      )
      assert.lengthOf(prepared.rows, 1)
    })
  })

  test("knex's client hands out and takes back the pool's pg connections", async ({ assert }) => {
    const client = await acquirePgConnection()
    try {
      const result = await client.query('SELECT 2 AS two')
      assert.equal(result.rows[0].two, 2)
    } finally {
      await releasePgConnection(client)
    }
  })

  test("hydrate makes the same model as Lucid's $createFromAdapterResult", ({ assert }) => {
    const row: Record<string, unknown> = {}
    for (const column of Merchant.$columnsDefinitions.values()) row[column.columnName] = null
    Object.assign(row, { id: 7, name: 'Upgrade check' })
    const ours = hydrate(Merchant, row)
    const lucid = Merchant.$createFromAdapterResult(row)!
    assert.deepEqual(ours.$attributes, lucid.$attributes)
    assert.deepEqual(ours.$original, lucid.$original)
    assert.deepEqual(ours.$extras, lucid.$extras)
    assert.equal(ours.$isPersisted, lucid.$isPersisted)
    assert.equal(ours.$isLocal, lucid.$isLocal)
  })

  test('the auth package keeps the protected members the clocked token provider uses', ({
    assert,
  }) => {
    for (const member of ['getDb', 'dbRowToAccessToken']) {
      assert.equal(typeof Reflect.get(DbAccessTokensProvider.prototype, member), 'function', member)
    }
    const provider = DbAccessTokensProvider.forModel(Merchant, {
      prefix: 'upg_',
      type: 'upgrade_check',
      table: 'upgrade_check_tokens',
      tokenSecretLength: 48,
    })
    assert.equal(Reflect.get(provider, 'prefix'), 'upg_')
    assert.equal(Reflect.get(provider, 'type'), 'upgrade_check')
    assert.equal(Reflect.get(provider, 'table'), 'upgrade_check_tokens')
    assert.equal(Reflect.get(provider, 'tokenSecretLength'), 48)
  })
})

test.group('Platform internals: the encrypter text format', () => {
  test("the application encrypter's seals open with the key derived as it derives it", ({
    assert,
  }) => {
    const key = textFormatKey(settings.appKeyText(), encryption)
    assert.isNotNull(key, "the encrypter's text format or key derivation changed")
    const purpose = uniqueKey('text_format')
    const text = 'j{"field": "é \u2028 \\"}'
    const sealed = encryption.encrypt(text, undefined, purpose)
    assert.equal(sealed.split('.')[0], key!.id)
    assert.strictEqual(openTextFormat(key!, sealed, purpose), text)
    const value = { capture_status: 'captured', omissions: [] }
    assert.deepEqual(
      openTextFormat(key!, encryption.encrypt(value, undefined, purpose), purpose),
      value
    )
    // The purpose is the additional data; a seal with an expiry is refused.
    assert.throws(() => openTextFormat(key!, sealed, `${purpose}:other`))
    assert.isUndefined(openTextFormat(key!, encryption.encrypt(text, '1h', purpose), purpose))
  })
})
