/*
| The password hasher (config/hash.ts): the library's scrypt driver, its PHC format,
| checks and configuration, with each key derived on a password hashing thread
| (#support/scrypt_threads) instead of libuv's thread pool. Hashes made by either
| verify with the other.
*/
import { randomBytes } from 'node:crypto'
import { safeEqual } from '@poppinss/utils'
import { Scrypt } from '@adonisjs/hash/drivers/scrypt'
import { PhcFormatter } from '@adonisjs/hash/phc_formatter'
import type { HashDriverContract, ScryptConfig } from '@adonisjs/hash/types'
import { HashingThreadFailed, ScryptThreads } from '#support/scrypt_threads'

export class ThreadedScrypt implements HashDriverContract {
  readonly #config: Required<ScryptConfig>
  /** Format checks and rehash decisions, exactly the library's. */
  readonly #library: Scrypt
  readonly #phc = new PhcFormatter()

  constructor(
    config: Required<ScryptConfig>,
    private threads = new ScryptThreads()
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
    const key = await this.threads.derive({
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
   * hashing thread that died is a failure, not a wrong password.
   */
  async verify(hashedValue: string, plainValue: string) {
    if (!this.#library.isValidHash(hashedValue)) return false
    // isValidHash checked that n, r and p are there, as integers.
    const node = this.#phc.deserialize(hashedValue)
    const params = node.params as { n: number; r: number; p: number }
    try {
      const key = await this.threads.derive({
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
      if (error instanceof HashingThreadFailed) throw error
      return false
    }
  }
}
