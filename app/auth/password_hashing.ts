/*
| Password checks as operations ask for them: each in the line of its key
| (app/platform/hash_queue.ts), dropped while it waits when the caller's signal aborts.
|
| The keys, one rule: a login waits in the line of the identity it submits (username
| or email, normalized), whether or not an account has it, so that its place in line
| never tells whether the account exists; a signed-in user's current-password check
| waits in that user's line. One identity flooded with wrong passwords then waits
| behind itself, and every other login is served in turn beside it. A new password is
| hashed in the line of the account it is for (a change, a reset) or of the invitation
| it accepts, and dropped too while it waits when its caller has gone.
*/
import { createHash, randomBytes } from 'node:crypto'
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

/** The place of an invitation's new account's password: that invitation's line. */
export function invitationHashingPlace(invitationId: string, signal?: AbortSignal): HashingPlace {
  return { key: `invitation:${invitationId}`, signal }
}

/** A new password's stored hash, made in its turn at `place`. */
export function hashNewPassword(password: string, place: HashingPlace): Promise<string> {
  return hashingAt(place, () => hash.make(password))
}

/**
 * Checks of the same password against the same stored hash, in the same line, that
 * overlap share one hash: the answer cannot differ, and fifty concurrent attempts at one credential
 * delivery (or a flood of one wrong password) would otherwise fill the user's line and
 * be shed. Keyed by a digest, never the password; an entry lives while its hash does.
 */
const checksInFlight = new Map<string, SharedCheck>()

interface SharedCheck {
  result: Promise<boolean>
  /** Aborted once every caller waiting on the check has gone (hash_queue drops it). */
  abandon: AbortController
  waiting: number
}

/** Whether `password` matches `storedHash`, its hash queued at `place`. */
export function verifyPassword(
  storedHash: string,
  password: string,
  place: HashingPlace
): Promise<boolean> {
  // The line's key is part of it: unknown identities all check against the one decoy,
  // and sharing across identities would let a caller tell a decoy from an account.
  const key = createHash('sha256')
    .update(`${place.key}\0${storedHash}\0`)
    .update(password)
    .digest('hex')
  let check = checksInFlight.get(key)
  if (!check) {
    const abandon = new AbortController()
    const result = hashingAt({ key: place.key, signal: abandon.signal }, () =>
      hash.verify(storedHash, password)
    ).finally(() => checksInFlight.delete(key))
    check = { result, abandon, waiting: 0 }
    checksInFlight.set(key, check)
  }
  const shared = check
  shared.waiting += 1
  const leave = () => {
    shared.waiting -= 1
    if (shared.waiting === 0) shared.abandon.abort()
  }
  if (place.signal?.aborted) leave()
  else place.signal?.addEventListener('abort', leave, { once: true })
  return shared.result
}

/** Callers waiting on a shared check now, in all (tests wait for a burst to have joined). */
export function callersOnSharedChecks() {
  let callers = 0
  for (const check of checksInFlight.values()) callers += check.waiting
  return callers
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
