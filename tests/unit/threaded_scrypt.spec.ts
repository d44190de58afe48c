import { test } from '@japa/runner'
import { pbkdf2 } from 'node:crypto'
import { Scrypt } from '@adonisjs/hash/drivers/scrypt'
import { ThreadedScrypt } from '#auth/threaded_scrypt'
import { HashingThreadFailed, ScryptThreads, threadMessage } from '#platform/scrypt_threads'
import { HashQueue } from '#platform/hash_queue'
import { PASSWORD_SCRYPT } from '#config/hash'
import ApiError from '#exceptions/api_error'
import { hashingAt } from '#auth/hashing_place'
import { decoyPasswordHash } from '#auth/password_hashing'

const { saltSize, keyLength, ...params } = PASSWORD_SCRYPT

test.group('Password hashing threads', (group) => {
  const threads = new ScryptThreads(2)
  const queue = new HashQueue({
    slots: threads.size,
    bounds: () => ({ maxQueued: 100, maxPerKey: 100, maxWaitMs: 60_000 }),
    expectedHashMs: 100,
  })
  const hasher = new ThreadedScrypt(PASSWORD_SCRYPT, threads, queue)
  const library = new Scrypt(PASSWORD_SCRYPT)
  group.teardown(() => threads.close())

  test('hashes made here and by the library verify with each other', async ({ assert }) => {
    const made = await hasher.make('correct horse')
    assert.match(made, /^\$scrypt\$n=16384,r=8,p=1\$/)
    assert.isTrue(await library.verify(made, 'correct horse'))
    assert.isTrue(await hasher.verify(await library.make('battery staple'), 'battery staple'))
    assert.isFalse(await hasher.needsReHash(made))
  })

  test("a thread is sent the salt's own bytes, not the pool the salt is a view of", ({
    assert,
  }) => {
    // A salt read from a stored hash, as verify() gets it: a view of Node's Buffer pool.
    const salt = Buffer.from('c2FsdHNhbHRzYWx0c2FsdA', 'base64')
    assert.isAbove(salt.buffer.byteLength, salt.byteLength)
    const job = { password: 'p', salt, keyLength, ...params }
    // postMessage copies what structuredClone copies.
    const received = structuredClone(threadMessage(7, job))
    assert.equal(received.job.salt.buffer.byteLength, salt.byteLength)
    assert.deepEqual(Buffer.from(received.job.salt), salt)
    assert.equal(received.id, 7)
  })

  test('a wrong password, a malformed hash or refused parameters verify false', async ({
    assert,
  }) => {
    const made = await hasher.make('correct horse')
    assert.isFalse(await hasher.verify(made, 'wrong horse'))
    assert.isFalse(await hasher.verify('not a hash', 'correct horse'))
    assert.isFalse(await hasher.verify(made.replace('n=16384', 'n=16383'), 'correct horse'))
  })

  test('hashes at once are spread over the threads and each gets its own key', async ({
    assert,
  }) => {
    const passwords = Array.from({ length: 6 }, (_, index) => `password ${index}`)
    const made = await Promise.all(passwords.map((password) => hasher.make(password)))
    const checks = await Promise.all(
      made.map((stored, index) => hasher.verify(stored, passwords[(index + 1) % 6]))
    )
    assert.deepEqual(checks, [false, false, false, false, false, false])
    for (const [index, stored] of made.entries()) {
      assert.isTrue(await library.verify(stored, passwords[index]))
    }
  })

  test("hashing does not wait for work that fills libuv's thread pool", async ({ assert }) => {
    // Every thread of libuv's pool busy with a long key derivation; a password hash on
    // libuv's pool would wait for all of them.
    const stored = await hasher.make('quick')
    const poolSize = Number(process.env.UV_THREADPOOL_SIZE ?? 4)
    let poolDone = 0
    const poolWork = Array.from(
      { length: poolSize },
      () =>
        new Promise<void>((resolve) =>
          pbkdf2('x', 'y', 3_000_000, 64, 'sha512', () => {
            poolDone++
            resolve()
          })
        )
    )
    assert.isTrue(await hasher.verify(stored, 'quick'))
    // The pool's work is not done: the hash did not wait behind it.
    assert.equal(poolDone, 0)
    await Promise.all(poolWork)
  }).timeout(60_000)

  test('a thread that dies fails the hashes it held, and the next hash works', async ({
    assert,
  }) => {
    const own = new ScryptThreads(1)
    const held = own.derive({ password: 'x', salt: Buffer.alloc(saltSize), keyLength, ...params })
    await own.close()
    await assert.rejects(() => held, HashingThreadFailed)
    const { key, ms } = await own.derive({
      password: 'x',
      salt: Buffer.alloc(saltSize),
      keyLength,
      ...params,
    })
    assert.equal(key.length, keyLength)
    assert.isAbove(ms, 0)
    await own.close()
  })

  test('a login decoy is a stored hash no password matches, costing one hash', async ({
    assert,
  }) => {
    const decoy = decoyPasswordHash()
    assert.isTrue(hasher.isValidHash(decoy))
    assert.match(decoy, /^\$scrypt\$n=16384,r=8,p=1\$/)
    const before = queue.stats.started
    assert.isFalse(await hasher.verify(decoy, 'any password'))
    assert.equal(queue.stats.started, before + 1)
  })
})

test.group('Password hashing threads › the queue in front', (group) => {
  const threads = new ScryptThreads(1)
  group.teardown(() => threads.close())

  test('hashes wait in the line of the place their operation states; a refused one is 503 with Retry-After, not a wrong password', async ({
    assert,
  }) => {
    const queue = new HashQueue({
      slots: threads.size,
      bounds: () => ({ maxQueued: 10, maxPerKey: 1, maxWaitMs: 60_000 }),
      expectedHashMs: 100,
    })
    const hasher = new ThreadedScrypt(PASSWORD_SCRYPT, threads, queue)
    const stored = await hasher.make('correct horse')
    let release!: () => void
    const holder = queue.run('holder', () => new Promise<void>((resolve) => (release = resolve)))

    const waiting = hashingAt({ key: 'login:a' }, () => hasher.verify(stored, 'correct horse'))
    const refused = await hashingAt({ key: 'login:a' }, () =>
      hasher.verify(stored, 'correct horse').then(
        () => null,
        (error: unknown) => error
      )
    )
    assert.instanceOf(refused, ApiError)
    assert.equal((refused as ApiError).status, 503)
    assert.match((refused as ApiError).headers?.['Retry-After'] ?? '', /^[1-9][0-9]*$/)
    // Another line still has room.
    const other = hashingAt({ key: 'login:b' }, () => hasher.verify(stored, 'wrong horse'))
    assert.equal(queue.stats.queued, 2)

    release()
    await holder
    assert.isTrue(await waiting)
    assert.isFalse(await other)
  })
})
