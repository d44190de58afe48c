/*
| An access token's value (`<prefix><identifier>.<secret>`, both parts base64url):
| made when a token is issued, read and its secret checked against the stored hash on
| every authenticated request. The same rules as the auth package's AccessToken.seed,
| AccessToken#value, AccessToken.decode and AccessToken#verify
| (tests/unit/token_value.spec.ts compares them on arbitrary input), without their
| per-call costs: base64url through three regular-expression replaces each way, a
| RegExp built for the prefix on every decode, hashes copied into fresh zero-filled
| buffers to compare them. The profiles of `GET /portal/me` and `POST /oauth/token`
| put them at 3 % and 3.5 % of the request's CPU.
*/
import { hash, randomBytes, timingSafeEqual } from 'node:crypto'
import { crc32 } from 'node:zlib'
import { Secret } from '@adonisjs/core/helpers'

export interface DecodedTokenValue {
  identifier: string
  secret: string
}

/**
 * A part's text, or null unless the part is exactly the unpadded base64url of that
 * text (one spelling per value; bytes that are not UTF-8 do not survive the trip).
 */
function canonicalBase64Url(part: string): string | null {
  const text = Buffer.from(part, 'base64url').toString('utf8')
  return Buffer.from(text, 'utf8').toString('base64url') === part ? text : null
}

/** The identifier and secret of `value`, or null when it is not a token of `prefix`. */
export function decodeTokenValue(prefix: string, value: unknown): DecodedTokenValue | null {
  if (typeof value !== 'string' || !value.startsWith(prefix)) return null
  const dot = value.indexOf('.', prefix.length)
  if (dot === -1 || dot === prefix.length) return null
  const identifier = canonicalBase64Url(value.slice(prefix.length, dot))
  const secret = canonicalBase64Url(value.slice(dot + 1))
  if (!identifier || !secret) return null
  return { identifier, secret }
}

/**
 * A secret's stored form: its SHA-256, hex, in one shot (as one_time_proof.ts's
 * sha256Hex, which is not imported here: that module reads the app key when loaded,
 * and this one is loaded with the auth config, before a local key is set).
 */
const storedHashOf = (secret: string) => hash('sha256', secret, 'hex')

/** Whether `secret` has the stored hash `storedHash`, compared in constant time. */
export function secretMatches(storedHash: string, secret: string): boolean {
  const expected = Buffer.from(storedHash, 'utf8')
  const actual = Buffer.from(storedHashOf(secret), 'latin1')
  // Compared whatever the lengths, so a wrong length costs what a wrong hash does.
  const equal = timingSafeEqual(expected, expected.length === actual.length ? actual : expected)
  return equal && expected.length === actual.length
}

/**
 * A secret as AccessToken.seed makes it from `seed`: the seed, then its CRC-32 in
 * decimal (a checksum secret scanners recognise).
 */
export function tokenSecretOf(seed: string): string {
  return `${seed}${crc32(seed)}`
}

/** A new token's secret (`size` random URL-safe characters, checksummed) and its stored hash. */
export function transientToken(ownerId: number, size: number) {
  const seed = randomBytes(Math.ceil(((size + 1) * 6) / 8))
    .toString('base64url')
    .slice(0, size)
  const secret = tokenSecretOf(seed)
  return {
    userId: ownerId,
    secret: new Secret(secret),
    hash: storedHashOf(secret),
  }
}

/** The value a client presents for token `identifier` with `secret`. */
export function tokenValueOf(prefix: string, identifier: number | string, secret: string): string {
  return `${prefix}${Buffer.from(String(identifier)).toString('base64url')}.${Buffer.from(secret).toString('base64url')}`
}
