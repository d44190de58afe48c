import { defineConfig } from '@adonisjs/core/hash'
import type { ScryptConfig } from '@adonisjs/hash/types'
import { ThreadedScrypt } from '#auth/threaded_scrypt'
import { ScryptThreads } from '#platform/scrypt_threads'
import { HashQueue } from '#platform/hash_queue'
import settings from '#config/settings'
import { watchPasswordHashQueue } from '#support/hash_queue_metrics'

/**
 * Passwords: scrypt, N=16384, r=8, p=1, 64-byte key, 16-byte salt, in the library's
 * PHC format, each hash on a password hashing thread (app/auth/threaded_scrypt.ts)
 * after its turn in the hash queue (app/platform/hash_queue.ts).
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

const threads = new ScryptThreads()

/** Hashes waiting per thread when PASSWORD_HASH_QUEUE is unset (the wait bound mostly refuses first). */
const QUEUED_PER_THREAD = 24

/**
 * The hash queue's bounds (docs/operations.md › Password hashing on threads of its
 * own): PASSWORD_HASH_QUEUE waiting in all, a quarter of them (at least one) per key,
 * and PASSWORD_HASH_MAX_WAIT_MS of expected or actual wait.
 */
export function passwordHashBounds() {
  const maxQueued = settings.passwordHashQueue() ?? QUEUED_PER_THREAD * threads.size
  return {
    maxQueued,
    maxPerKey: Math.max(1, Math.floor(maxQueued / 4)),
    maxWaitMs: settings.passwordHashMaxWaitMs(),
  }
}

/** The line in front of the threads; its counters are what tests and operators watch. */
export const passwordHashQueue = new HashQueue({
  slots: threads.size,
  // One identity's hashes take half the threads at most: another user's login then
  // finds a thread free instead of waiting for a flood's hash to end (issue 38 › goal 2).
  slotsPerKey: Math.max(1, Math.floor(threads.size / 2)),
  bounds: passwordHashBounds,
  // An N=16384 scrypt takes tens of milliseconds (about 36 on bench/README.md's two
  // cores); the queue learns the real figure from the first hashes.
  expectedHashMs: 100,
})
watchPasswordHashQueue(() => passwordHashQueue.stats)

const hashConfig = defineConfig({
  default: 'scrypt',
  list: { scrypt: () => new ThreadedScrypt(PASSWORD_SCRYPT, threads, passwordHashQueue) },
})

export default hashConfig

declare module '@adonisjs/core/types' {
  export interface HashersList extends InferHashers<typeof hashConfig> {}
}
