/*
| One-time proofs (reset tokens, OTPs, signed-link proofs): generated from the
| system CSPRNG, stored only as hashes, compared in constant time.
*/
import { createHmac, hash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import { appKey } from '#config/app'

/** 64 lowercase hex characters from 32 random bytes. */
export function newProof(): string {
  return randomBytes(32).toString('hex')
}

/** Six decimal digits, leading zeros kept (000000-999999, uniform). */
export function newOtp(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0')
}

/**
 * SHA-256 of the UTF-8 text, hex. One-shot: a Hash object per call (what createHash
 * makes) was 1.4 % of `GET /portal/me`'s CPU, which hashes the token's secret.
 */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex')
}

/**
 * HMAC-SHA256 keyed by APP_KEY, for low-entropy secrets (a six-digit OTP): a
 * leaked database row alone does not let anyone try the million candidates.
 */
export function keyedHash(purpose: string, value: string): string {
  return createHmac('sha256', appKey.release()).update(`${purpose}\n${value}`, 'utf8').digest('hex')
}

/** Constant-time equality of two strings (false when either is missing). */
export function constantTimeEquals(a: string | null | undefined, b: string | null | undefined) {
  if (typeof a !== 'string' || typeof b !== 'string') return false
  const left = Buffer.from(a, 'utf8')
  const right = Buffer.from(b, 'utf8')
  if (left.length !== right.length) {
    timingSafeEqual(left, left)
    return false
  }
  return timingSafeEqual(left, right)
}
