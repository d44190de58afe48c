/*
| Reading an access token's value (`<prefix><identifier>.<secret>`, both parts
| base64url) and checking its secret against the stored hash, on every authenticated
| request. The same rules as the auth package's AccessToken.decode and
| AccessToken#verify (tests/unit/token_value.spec.ts compares them on arbitrary
| input), without their per-call costs: decode builds a RegExp for the prefix and
| checks each part by re-encoding it through three regular-expression replaces, and
| verify copies both hashes into fresh zero-filled buffers; the profile of
| `GET /portal/me` put them at 3 % of the request's CPU.
*/
import { createHash, timingSafeEqual } from 'node:crypto'

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

/** Whether `secret` hashes (SHA-256, hex) to `storedHash`, in constant time. */
export function secretMatches(storedHash: string, secret: string): boolean {
  const expected = Buffer.from(storedHash, 'utf8')
  const actual = Buffer.from(createHash('sha256').update(secret).digest('hex'), 'latin1')
  // Compared whatever the lengths, so a wrong length costs what a wrong hash does.
  const equal = timingSafeEqual(expected, expected.length === actual.length ? actual : expected)
  return equal && expected.length === actual.length
}
