/*
| Machine client secrets (portal-api.md › Machine clients; decisions: "secrets hashed
| when only compared"). A secret is 256 random bits (base64url, 43 characters); only
| HMAC-SHA256(APP_KEY, secret) is stored. A keyed fast hash suits a high-entropy
| random secret (no dictionary to slow down), keeps the token endpoint cheap under
| load, and a stolen table is useless without APP_KEY. Comparison is constant-time.
*/
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { appKey } from '#config/app'

const HASH_PREFIX = 'hmac-sha256$'

export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url')
}

export function hashClientSecret(secret: string): string {
  return HASH_PREFIX + createHmac('sha256', appKey.release()).update(secret, 'utf8').digest('hex')
}

// Compared against when the client is unknown, so that every path does the same work.
const DECOY_HASH = hashClientSecret(randomBytes(32).toString('base64url'))

/** Constant-time check of a presented secret against a stored hash (or the decoy when null). */
export function clientSecretMatches(storedHash: string | null, presented: string): boolean {
  const expected = Buffer.from(storedHash ?? DECOY_HASH, 'utf8')
  const actual = Buffer.from(hashClientSecret(presented), 'utf8')
  const equal = expected.length === actual.length && timingSafeEqual(expected, actual)
  return equal && storedHash !== null
}
