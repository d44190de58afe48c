import { defineConfig } from '@adonisjs/core/hash'
import type { ScryptConfig } from '@adonisjs/hash/types'
import { ThreadedScrypt } from '#auth/threaded_scrypt'

/**
 * Passwords: scrypt, N=16384, r=8, p=1, 64-byte key, 16-byte salt, in the library's
 * PHC format, each hash on a password hashing thread (app/auth/threaded_scrypt.ts).
 * Random secrets (Portal and machine client secrets) use the keyed rule of
 * app/auth/high_entropy_secrets.ts.
 */
export const PASSWORD_SCRYPT: Required<ScryptConfig> = {
  cost: 16384,
  blockSize: 8,
  parallelization: 1,
  saltSize: 16,
  keyLength: 64,
  maxMemory: 33554432,
}

const hashConfig = defineConfig({
  default: 'scrypt',
  list: { scrypt: () => new ThreadedScrypt(PASSWORD_SCRYPT) },
})

export default hashConfig

declare module '@adonisjs/core/types' {
  export interface HashersList extends InferHashers<typeof hashConfig> {}
}
