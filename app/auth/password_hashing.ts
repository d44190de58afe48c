/*
| Password checks as operations ask for them: each in the line of its key
| (app/support/hash_queue.ts), dropped while it waits when the caller's signal aborts.
|
| The keys, one rule: a login waits in the line of the identity it submits (username
| or email, normalized), whether or not an account has it, so that its place in line
| never tells whether the account exists; a signed-in user's current-password check
| waits in that user's line. One identity flooded with wrong passwords then waits
| behind itself, and every other login is served in turn beside it.
*/
import { randomBytes } from 'node:crypto'
import hash from '@adonisjs/core/services/hash'
import { PhcFormatter } from '@adonisjs/hash/phc_formatter'
import { PASSWORD_SCRYPT } from '#config/hash'
import { hashingAt, type HashingPlace } from '#auth/hashing_place'
import { normalizeIdentity } from '#support/identity'

/** The place of a login's password check: the line of the identity it submits. */
export function loginHashingPlace(identity: string, signal?: AbortSignal): HashingPlace {
  return { key: `login:${normalizeIdentity(identity)}`, signal }
}

/** The place of a signed-in user's password check: that user's line. */
export function userHashingPlace(userId: number, signal?: AbortSignal): HashingPlace {
  return { key: `user:${userId}`, signal }
}

/** Whether `password` matches `storedHash`, its hash queued at `place`. */
export function verifyPassword(
  storedHash: string,
  password: string,
  place: HashingPlace
): Promise<boolean> {
  return hashingAt(place, () => hash.verify(storedHash, password))
}

let decoy: string | undefined

/**
 * A stored hash in the password format that no password matches (random salt and
 * key): verifying against it costs one hash, as an account's does. Built, not hashed,
 * so that a login never waits for (or fails on) making it.
 */
export function decoyPasswordHash(): string {
  const { saltSize, keyLength, cost, blockSize, parallelization } = PASSWORD_SCRYPT
  decoy ??= new PhcFormatter().serialize(randomBytes(saltSize), randomBytes(keyLength), {
    id: 'scrypt',
    params: { n: cost, r: blockSize, p: parallelization },
  })
  return decoy
}
