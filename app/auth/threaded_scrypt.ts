/*
| The password hasher (config/hash.ts): the library's scrypt driver, its PHC format,
| checks and configuration, with each key derived on a password hashing thread
| (#platform/scrypt_threads) instead of libuv's thread pool, after its turn in the hash
| queue (#platform/hash_queue) at the place its operation states (#auth/hashing_place).
| Hashes made by either verify with the other.
|
| A hash the queue refuses, or drops because its caller has gone, fails the request
| with 503 SERVICE_UNAVAILABLE and Retry-After, whoever asked for it.
*/
import { randomBytes } from 'node:crypto'
import { safeEqual } from '@poppinss/utils'
import { Scrypt } from '@adonisjs/hash/drivers/scrypt'
import { PhcFormatter } from '@adonisjs/hash/phc_formatter'
import type { HashDriverContract, ScryptConfig } from '@adonisjs/hash/types'
import ApiError from '#exceptions/api_error'
import { HashingThreadFailed, type ScryptJob, type ScryptThreads } from '#platform/scrypt_threads'
import type { HashQueue } from '#platform/hash_queue'
import { HashAbandoned, HashQueueFull } from '#platform/hash_refusal'
import { currentHashingPlace } from '#auth/hashing_place'

export class ThreadedScrypt implements HashDriverContract {
  readonly #config: Required<ScryptConfig>
  /** Format checks and rehash decisions, exactly the library's. */
  readonly #library: Scrypt
  readonly #phc = new PhcFormatter()

  constructor(
    config: Required<ScryptConfig>,
    private threads: ScryptThreads,
    readonly queue: HashQueue
  ) {
    this.#library = new Scrypt(config)
    this.#config = config
  }

  isValidHash(value: string) {
    return this.#library.isValidHash(value)
  }

  needsReHash(value: string) {
    return this.#library.needsReHash(value)
  }

  async make(value: string) {
    const { cost, blockSize, parallelization, saltSize, keyLength, maxMemory } = this.#config
    const salt = randomBytes(saltSize)
    const key = await this.#derive({
      password: value,
      salt,
      keyLength,
      cost,
      blockSize,
      parallelization,
      maxMemory,
    })
    return this.#phc.serialize(salt, key, {
      id: 'scrypt',
      params: { n: cost, r: blockSize, p: parallelization },
    })
  }

  /**
   * As the library's: false for a malformed hash or parameters scrypt refuses. A
   * hashing thread that died is a failure, not a wrong password; so is a hash the
   * queue did not run.
   */
  async verify(hashedValue: string, plainValue: string) {
    if (!this.#library.isValidHash(hashedValue)) return false
    // isValidHash checked that n, r and p are there, as integers.
    const node = this.#phc.deserialize(hashedValue)
    const params = node.params as { n: number; r: number; p: number }
    try {
      const key = await this.#derive({
        password: plainValue,
        salt: node.salt,
        keyLength: node.hash.byteLength,
        cost: params.n,
        blockSize: params.r,
        parallelization: params.p,
        maxMemory: this.#config.maxMemory,
      })
      return safeEqual(key, node.hash)
    } catch (error) {
      if (
        error instanceof HashingThreadFailed ||
        error instanceof ApiError ||
        error instanceof HashAbandoned
      ) {
        throw error
      }
      return false
    }
  }

  /** The key of `job`, derived on a thread once the queue gives it its turn. */
  async #derive(job: ScryptJob): Promise<Buffer> {
    const { key, signal } = currentHashingPlace()
    try {
      const derived = await this.queue.run(key, () => this.threads.derive(job), signal)
      this.queue.observe(derived.ms)
      return derived.key
    } catch (error) {
      if (error instanceof HashQueueFull) {
        throw ApiError.shed(
          'Too many password checks are waiting. Try again later.',
          error.retryAfterSeconds
        )
      }
      // HashAbandoned goes up as it is: nobody receives the answer, and the exception
      // handler logs the client's departure, not an outage.
      throw error
    }
  }
}
