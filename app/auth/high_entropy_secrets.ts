/*
| High-entropy secrets: machine client secrets and Portal client secrets, both 256
| random bits generated here (portal-api.md › Machine clients; decisions: "secrets
| hashed when only compared"). One rule for both: only HMAC-SHA256(APP_KEY, secret)
| is stored, prefixed `hmac-sha256$`. A keyed fast hash is the right rule for a
| random secret — there is no dictionary for a slow hash to slow down, a stolen
| table is useless without APP_KEY, and authenticating costs a keyed hash instead of
| a 16 MiB scrypt. Comparison is constant-time, and an unknown client is
| compared against a decoy so that it costs the same as a known one.
|
| Passwords are NOT high-entropy: they stay on the scrypt hash service.
|
| Portal client secrets were stored as scrypt hashes before (`$scrypt$...`). Those
| still verify (with scrypt); the caller then replaces the stored hash with the keyed
| form on that successful authentication (`upgradedHash`), so no operator has to
| reissue a secret.
*/
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import hash from '@adonisjs/core/services/hash'
import { Hash } from '@adonisjs/core/hash'
import type { HashDriverContract } from '@adonisjs/core/types/hash'
import settings from '#config/settings'

export const KEYED_HASH_PREFIX = 'hmac-sha256$'

/** A new secret: 256 random bits, base64url (43 characters). */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url')
}

/** The stored form of a secret: `hmac-sha256$` + hex HMAC-SHA256 under APP_KEY. */
export function hashSecret(secret: string): string {
  // APP_KEY read when used, not when imported: ace imports command modules (this one
  // through portal-client:create) before start/runtime.ts sets the local key.
  const key = settings.appKeyText()
  if (!key) throw new Error('APP_KEY is not set')
  return KEYED_HASH_PREFIX + createHmac('sha256', key).update(secret, 'utf8').digest('hex')
}

/** Whether a stored hash already follows the keyed rule. */
export function isKeyedHash(storedHash: string): boolean {
  return storedHash.startsWith(KEYED_HASH_PREFIX)
}

// Compared against when the client is unknown, so that every path does the same work.
// Made on first use: APP_KEY is not readable yet while ace imports command modules.
let decoyHash: string | undefined
const decoy = () => (decoyHash ??= hashSecret(generateSecret()))

/**
 * Constant-time check of a presented secret against a keyed stored hash, or against
 * the decoy when `storedHash` is null (unknown client: same work, never a match).
 */
export function secretMatches(storedHash: string | null, presented: string): boolean {
  const expected = Buffer.from(storedHash ?? decoy(), 'utf8')
  const actual = Buffer.from(hashSecret(presented), 'utf8')
  const equal = expected.length === actual.length && timingSafeEqual(expected, actual)
  return equal && storedHash !== null
}

/**
 * The keyed rule as a hash driver, so that verifying a Portal client secret is a
 * hash verification like any other (the hardening tests watch every one of them:
 * none while a database connection is held, none for a throttled request).
 */
class KeyedSecretDriver implements HashDriverContract {
  isValidHash(value: string) {
    return isKeyedHash(value)
  }
  async make(value: string) {
    return hashSecret(value)
  }
  async verify(hashedValue: string, plainValue: string) {
    return secretMatches(hashedValue, plainValue)
  }
  needsReHash(value: string) {
    return !isKeyedHash(value)
  }
}

const keyedSecrets = new Hash(new KeyedSecretDriver())

/**
 * Checks a presented secret against a stored hash of either form. A legacy scrypt
 * hash is verified with scrypt and, when it matches, `upgradedHash` is the keyed
 * form the caller stores once the whole authentication has succeeded.
 */
export async function verifySecret(
  storedHash: string | null,
  presented: string
): Promise<{ matches: boolean; upgradedHash: string | null }> {
  if (storedHash === null || isKeyedHash(storedHash)) {
    const matches = await keyedSecrets.verify(storedHash ?? decoy(), presented)
    return { matches: matches && storedHash !== null, upgradedHash: null }
  }
  const matches = await hash.verify(storedHash, presented)
  return { matches, upgradedHash: matches ? hashSecret(presented) : null }
}
