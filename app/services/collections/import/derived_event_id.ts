/*
| Ids of events given without one (import_event.ts): derived, so that importing the
| same file again finds the same event.
*/
import { hash } from 'node:crypto'
import type { Timestamp } from '#validators/rules/timestamp'
import type { ImportedTransaction } from '#services/collections/import/imported_records'

/**
 * An id for an event given without one: a ULID whose time is `captured_at` and whose
 * randomness is a hash of the transaction key, the event's position and what it is,
 * so that importing the same file again finds the same event instead of a copy.
 */
export function derivedEventId(
  transaction: Pick<ImportedTransaction, 'merchantId' | 'environment' | 'merchantTransactionId'>,
  position: number,
  kind: string,
  capturedAt: Timestamp
): string {
  const digest = hash(
    'sha256',
    JSON.stringify([
      transaction.merchantId,
      transaction.environment,
      transaction.merchantTransactionId,
      position,
      kind,
      capturedAt.sql,
    ]),
    'buffer'
  )
  const millis = capturedAt.epochSeconds * 1000 + Math.floor(capturedAt.micros / 1000)
  return encodeUlid(Math.max(0, millis), digest.subarray(0, 10))
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/** 48-bit milliseconds + 80 bits of `entropy` in Crockford base32 (26 characters). */
export function encodeUlid(millis: number, entropy: Uint8Array): string {
  let time = ''
  let rest = Math.min(millis, 2 ** 48 - 1)
  for (let index = 0; index < 10; index++) {
    time = CROCKFORD[rest % 32] + time
    rest = Math.floor(rest / 32)
  }
  // 80 bits = 16 groups of 5, read from the first 10 bytes, most significant first.
  let random = ''
  let buffer = 0
  let bits = 0
  for (let index = 0; index < 10; index++) {
    buffer = (buffer << 8) | entropy[index]
    bits += 8
    while (bits >= 5) {
      bits -= 5
      random += CROCKFORD[(buffer >> bits) & 31]
    }
    buffer &= (1 << bits) - 1
  }
  return time + random
}
