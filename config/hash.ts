import { defineConfig, drivers } from '@adonisjs/core/hash'

/**
 * Passwords: scrypt, N=16384, r=8, p=1, 64-byte key, 16-byte salt. Random secrets
 * (Portal and machine client secrets) use the keyed rule of app/auth/high_entropy_secrets.ts.
 */
const hashConfig = defineConfig({
  default: 'scrypt',
  list: {
    scrypt: drivers.scrypt({
      cost: 16384,
      blockSize: 8,
      parallelization: 1,
      saltSize: 16,
      keyLength: 64,
      maxMemory: 33554432,
    }),
  },
})

export default hashConfig

declare module '@adonisjs/core/types' {
  export interface HashersList extends InferHashers<typeof hashConfig> {}
}
