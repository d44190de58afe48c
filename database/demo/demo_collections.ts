/*
| Demo collections (`node ace demo:seed`, first `npm run dev`): a year of transactions
| for the demo merchant, loaded through the import operation (decisions.md §5) so the
| demo exercises the same path as production data. The transactions themselves (when,
| how much, which brand, which status) come from demo_transactions.ts; this file adds
| their evidence. What a newcomer can find in it:
| - both environments, six brands, every status: PAID/PENDING/REJECTED, a lowercase
|   one, and rows that only have a legacy code (S, R, an unknown one);
| - PAID amounts in pennies whose sums catch floating point (0.10 + 0.20, 33.33 x 3,
|   0.01), a null amount, a reference with `%` and `_`, a transaction with no
|   evidence;
| - evidence of every kind (the provider and internal ones are never shown), webhook
|   retries, JSON and text replies, an unsupported schema version, one on legal hold,
|   one purged (past its retention) and one whose snapshot is corrupt.
| The data is created once: when the demo merchant already has transactions, the seed
| leaves them as they are (so re-running demo:seed stays quick and stable).
*/
import { Readable } from 'node:stream'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import { importJsonLines } from '#services/collections/import/import_transactions'
import { demoTransactions, type DemoTransaction } from '#database/demo/demo_transactions'

const iso = (at: DateTime) => at.toISO()!

type Line = Record<string, unknown>

function demoEvents(index: number, tx: Line, transaction: DemoTransaction): Line[] {
  const { createdAt, status } = transaction
  const at = (milliseconds: number) =>
    iso(DateTime.fromMillis(createdAt.toMillis() + milliseconds, { zone: createdAt.zone }))
  const reference = tx.merchant_transaction_id
  const events: Line[] = [
    {
      kind: 'merchant_request.validated',
      captured_at: at(120),
      schema_version: index % 17 === 0 ? 1 : 2,
      capture_format: 'sanitized_snapshot',
      content_type: 'application/json',
      body: {
        merchant_transaction_id: reference,
        amount: tx.amount ?? '0.00',
        currency: tx.currency,
        payment_brand: tx.payment_brand,
        channel: 1 + (index % 4),
        is_card_payment: String(tx.payment_brand).startsWith('card_'),
        success_url: 'https://demo-merchant.test/checkout/ok',
        failure_url: 'https://demo-merchant.test/checkout/failed',
        customer: { email: `buyer${index}@mail.test`, mobile: '+639170000000' },
      },
    },
    {
      kind: 'merchant_response.synchronous',
      captured_at: at(480),
      schema_version: index === 5 ? 3 : 2,
      capture_format: 'sanitized_snapshot',
      content_type: 'application/json',
      body_capture_status: 'captured_sanitized',
      http_status: 201,
      is_repeated_request: index % 41 === 0,
      body: {
        success: true,
        data: {
          merchant_transaction_id: reference,
          amount: tx.amount ?? '0.00',
          payment_status: 'PENDING',
          is_card_payment: String(tx.payment_brand).startsWith('card_'),
          timestamp: at(470),
          payment_url: `https://pay.demo.test/checkout/${index}`,
        },
      },
    },
  ]
  if (index % 9 === 0) {
    events.push(
      {
        kind: 'provider.request',
        captured_at: at(900),
        schema_version: 2,
        capture_format: 'sanitized_snapshot',
        content_type: 'application/json',
        body: { reference, amount: tx.amount, api_key: 'sk_demo_never_shown' },
      },
      {
        kind: 'provider.response',
        captured_at: at(1_900),
        schema_version: 2,
        capture_format: 'sanitized_snapshot',
        content_type: 'application/json',
        http_status: 200,
        body: { status: 'SUCCESS', provider_transaction_id: `PRV-${index}` },
      }
    )
  }
  if (status === 'PENDING') return events

  const eventId = `evt_demo_${index}`
  if (index % 10 === 3) {
    // An older flow: only delivery attempts were kept.
    for (let attempt = 1; attempt <= 2; attempt++) {
      events.push({
        kind: 'merchant_notification.delivery_attempt',
        captured_at: at(60_000 * attempt),
        schema_version: 1,
        capture_format: 'legacy_sanitized_snapshot',
        event_id: eventId,
        attempt_number: attempt,
        http_status: attempt === 1 ? 503 : 200,
        duration_ms: attempt === 1 ? 10_000 : 230,
        delivery_state: attempt === 1 ? 'failed' : 'delivered',
      })
    }
    return events
  }
  events.push({
    kind: 'merchant_notification.queued',
    captured_at: at(30_000),
    schema_version: 2,
    capture_format: 'sanitized_snapshot',
    content_type: 'application/json',
    event_id: eventId,
    delivery_state: 'delivered',
    body: {
      merchant_transaction_id: reference,
      amount: tx.amount ?? '0.00',
      currency: tx.currency,
      payment_brand: tx.payment_brand,
      payment_status: status,
      provider_reference: `PRV-${index}`,
    },
  })
  const retry = index % 7 === 0
  if (retry) {
    events.push({
      kind: 'merchant_notification.response',
      captured_at: at(31_000),
      schema_version: 2,
      capture_format: 'sanitized_snapshot',
      event_id: eventId,
      attempt_number: 1,
      http_status: 500,
      duration_ms: 1_250,
      delivery_state: 'failed',
      body_capture_status: 'empty',
    })
  }
  const reply: Line = {
    kind: 'merchant_notification.response',
    captured_at: at(retry ? 91_000 : 31_000),
    schema_version: 2,
    capture_format: 'sanitized_snapshot',
    event_id: eventId,
    attempt_number: retry ? 2 : 1,
    http_status: 200,
    duration_ms: 180 + (index % 300),
    delivery_state: 'delivered',
  }
  if (index % 3 === 0) {
    Object.assign(reply, {
      content_type: 'text/plain',
      body_capture_status: 'captured',
      body_text: index % 6 === 0 ? 'OK' : '{oops',
    })
    if (index % 6 !== 0) reply.body_capture_status = 'captured_invalid_json_text'
  } else {
    Object.assign(reply, {
      content_type: 'application/json',
      body_capture_status: 'captured',
      body: { acknowledged: true, status: 'ok', message: 'thanks, order fulfilled' },
    })
  }
  events.push(reply)
  if (index % 50 === 1) {
    events.push({
      kind: 'internal',
      captured_at: at(120_000),
      schema_version: 2,
      capture_format: 'sanitized_snapshot',
      body: { note: 'status reconciled with the provider report' },
    })
  }
  return events
}

/** The demo year as import lines, oldest first, ending at `end`. */
export function demoCollectionLines(merchantId: number, end: DateTime = DateTime.utc()): Line[] {
  return demoTransactions(end).map((transaction, index) => {
    const { createdAt } = transaction
    const reference =
      index === 8
        ? 'DEMO_50%OFF-0008'
        : `DEMO-${createdAt.toFormat('yyyyMM')}-${String(index + 1).padStart(4, '0')}`
    const tx: Line = {
      merchant_id: merchantId,
      environment: transaction.environment,
      merchant_transaction_id: reference,
      amount: transaction.amount,
      currency: 'PHP',
      payment_status: transaction.paymentStatus,
      legacy_status: transaction.legacyStatus,
      payment_brand: transaction.paymentBrand,
      archived: transaction.archived,
      created_at: iso(createdAt),
      updated_at: iso(transaction.updatedAt),
    }
    const events = index === 10 ? [] : demoEvents(index, tx, transaction)
    if (index === 1) {
      // Past a short retention and purged: the row stays, the body is gone.
      const captured = createdAt.plus({ milliseconds: 120 })
      const request = events[0]
      delete request.body
      request.retain_until = iso(captured.plus({ months: 1 }))
      request.purged_at = iso(captured.plus({ months: 1, days: 1 }))
    }
    if (index === 4) events[0].legal_hold = true
    return { ...tx, events }
  })
}

/** One byte of a sealed value changed, so it no longer opens (same length). */
function flipped(sealed: Buffer) {
  const copy = Buffer.from(sealed)
  copy[copy.length >> 1] ^= 0x01
  return copy
}

/**
 * Corrupts one snapshot and its stored projection in place (keeping their sizes), so
 * history shows it unreadable, and so would a re-projection.
 */
async function corruptOneSnapshot(merchantId: number) {
  const row = await db
    .from('exchange_evidence')
    .where('merchant_id', merchantId)
    .where('kind', 'merchant_notification.queued')
    .whereNotNull('snapshot_ciphertext')
    .whereNotNull('projection_ciphertext')
    .orderBy('captured_at', 'desc')
    .orderBy('id')
    .select('id', 'snapshot_ciphertext', 'projection_ciphertext')
    .first()
  if (!row) return
  await db
    .from('exchange_evidence')
    .where('id', row.id)
    .update({
      snapshot_ciphertext: flipped(row.snapshot_ciphertext),
      projection_ciphertext: flipped(row.projection_ciphertext),
    })
}

/** Loads the demo year ending at `end` (now; tests pass a fixed instant). */
export async function seedDemoCollections(merchantId: number, end: DateTime = DateTime.utc()) {
  const existing = await db
    .from('transactions')
    .where('merchant_id', merchantId)
    .count('* as total')
    .first()
  if (Number(existing?.total ?? 0) > 0) {
    return { transactions: Number(existing?.total), created: false }
  }
  const lines = demoCollectionLines(merchantId, end)
  const result = await importJsonLines(
    Readable.from(
      (function* () {
        for (const line of lines) yield Buffer.from(JSON.stringify(line) + '\n')
      })()
    )
  )
  await corruptOneSnapshot(merchantId)
  return { transactions: result.transactions, events: result.events, created: true }
}
