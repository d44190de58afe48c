/*
| Helpers of the collections operator tests: import lines in the §5 format built from
| a few overrides, a stream of them, and the line error an import fails with.
*/
import { Readable } from 'node:stream'
import {
  importJsonLines,
  type ImportOptions,
} from '#services/collections/import/import_transactions'
import { ImportLineError } from '#services/collections/import/import_line'

export type Line = Record<string, any>

/** A valid transaction line with one validated-request event; overrides replace keys. */
export function transactionLine(merchantId: number, overrides: Line = {}): Line {
  const reference = overrides.merchant_transaction_id ?? 'ORD-1001'
  return {
    merchant_id: merchantId,
    environment: 'live',
    merchant_transaction_id: reference,
    amount: '1500.00',
    currency: 'PHP',
    payment_status: 'PAID',
    legacy_status: null,
    payment_brand: 'gcash',
    archived: false,
    created_at: '2026-03-01T10:00:00+08:00',
    updated_at: '2026-03-01T10:05:00+08:00',
    events: [
      {
        kind: 'merchant_request.validated',
        captured_at: '2026-03-01T10:00:00.120+08:00',
        schema_version: 2,
        capture_format: 'sanitized_snapshot',
        content_type: 'application/json',
        body: { merchant_transaction_id: reference, amount: '1500.00', currency: 'PHP' },
        retain_until: '2027-03-01T10:00:00+08:00',
        legal_hold: false,
      },
    ],
    ...overrides,
  }
}

/** An event in the §5 format; overrides replace keys. */
export function eventOf(overrides: Line = {}): Line {
  return {
    kind: 'merchant_notification.response',
    captured_at: '2026-03-01T10:01:00.000+08:00',
    schema_version: 2,
    capture_format: 'sanitized_snapshot',
    ...overrides,
  }
}

/** JSON Lines text of the given lines (strings are taken verbatim). */
export function jsonLinesOf(lines: Array<Line | string>) {
  return lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')
}

export function streamOf(lines: Array<Line | string>) {
  return Readable.from([Buffer.from(jsonLinesOf(lines) + '\n')])
}

export function importLines(lines: Array<Line | string>, options?: ImportOptions) {
  return importJsonLines(streamOf(lines), options)
}

/** The ImportLineError `promise` (an import) fails with; any other outcome fails the test. */
export async function failureOf(promise: Promise<unknown>): Promise<ImportLineError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof ImportLineError) return error
    throw error
  }
  throw new Error('the import did not fail')
}
