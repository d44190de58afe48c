/*
| The history of issue 21 › 1 for the benchmarks (bench/history_page.ts,
| bench/noisy_neighbour.ts): one transaction whose request events each carry a JSON
| body of about 118,000 keys, sealed to just under the 2 MiB read bound (the issue's
| snapshot: 2,054,639 bytes), and one transaction with as many small request events.
| Both go through the real import (importJsonLines, what `node ace collections:import`
| runs), so the rows and their stored projections are exactly what an operator's
| import stores. Call these only after bootApp().
*/
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

/** The encrypted snapshot size issue 21 measured (bytes; the read bound is 2,097,152). */
export const ISSUE_SNAPSHOT_BYTES = 2_054_639
export const BIG_BODY_KEYS = 118_000
/** Events of one line: ~1.3 MB of JSON each, so a line stays well under the 16 MiB line bound. */
const EVENTS_PER_LINE = 5

interface RequestBodyOptions {
  reference: string
  /** Keys beside the allowlisted fields (none for a small body). */
  keys: number
  /** Characters of an unlisted `memo` string, to tune the sealed size. */
  memo: number
}

/** A merchant request body: the allowlisted fields, then `keys` fields no allowlist names. */
function requestBody(options: RequestBodyOptions) {
  const body: Record<string, unknown> = {
    merchant_transaction_id: options.reference,
    amount: '1250.00',
    currency: 'PHP',
    payment_brand: 'gcash',
    channel: 2,
    is_card_payment: false,
    success_url: 'https://shop.example/ok',
    customer: { email: 'buyer@mail.example', mobile: '+639170000000' },
  }
  for (let index = 0; index < options.keys; index++) {
    body[`f${index.toString(36).padStart(4, '0')}`] = index % 10
  }
  if (options.memo > 0) body.memo = 'm'.repeat(options.memo)
  return body
}

/**
 * The big body's JSON text, tuned so that its sealed snapshot is `targetBytes` (within
 * a few bytes: base64 grows in steps of four). The sealed size depends only on the
 * text's length once escaped, so one correction lands it.
 */
export async function bigRequestBodyText(reference: string, targetBytes = ISSUE_SNAPSHOT_BYTES) {
  const { sealSnapshot } = await import('#services/collections/history/evidence_snapshot')
  const { READ_BOUND_BYTES } = await import('#services/collections/history/projection')
  const sealedSize = (text: string) =>
    sealSnapshot('01JBENCH0000000000000000000', { kind: 'json', text }).size
  const first = JSON.stringify(requestBody({ reference, keys: BIG_BODY_KEYS, memo: 1 }))
  const memo = Math.max(1, 1 + Math.floor(((targetBytes - sealedSize(first)) * 3) / 4))
  const text = JSON.stringify(requestBody({ reference, keys: BIG_BODY_KEYS, memo }))
  const size = sealedSize(text)
  if (size > READ_BOUND_BYTES) {
    throw new Error(`sealed snapshot of ${size} bytes is over the read bound`)
  }
  return { text, jsonBytes: Buffer.byteLength(text), sealedBytes: size }
}

export interface HistoryTransaction {
  reference: string
  events: number
  /** The body's JSON text (the same for every event of the transaction). */
  bodyText: string
}

/** The JSON Lines of a transaction: EVENTS_PER_LINE request events per line. */
function* linesOf(merchantId: number, transaction: HistoryTransaction) {
  const created = Date.parse('2026-11-02T03:00:00.000Z')
  const head = JSON.stringify({
    merchant_id: merchantId,
    environment: 'live',
    merchant_transaction_id: transaction.reference,
    amount: '1250.00',
    currency: 'PHP',
    payment_status: 'PENDING',
    legacy_status: null,
    payment_brand: 'gcash',
    archived: false,
    created_at: new Date(created).toISOString(),
    updated_at: new Date(created + 1000).toISOString(),
  }).slice(0, -1)
  for (let first = 0; first < transaction.events; first += EVENTS_PER_LINE) {
    const events: string[] = []
    for (
      let index = first;
      index < Math.min(first + EVENTS_PER_LINE, transaction.events);
      index++
    ) {
      const event = JSON.stringify({
        kind: 'merchant_request.validated',
        captured_at: new Date(created + 100 + index * 1000).toISOString(),
        schema_version: 2,
        capture_format: 'sanitized_snapshot',
        content_type: 'application/json',
      }).slice(0, -1)
      // The body's text is spliced in as is: the import stores the line's own text.
      events.push(`${event},"body":${transaction.bodyText}}`)
    }
    yield `${head},"events":[${events.join(',')}]}\n`
  }
}

/** The small request body of the comparison transaction. */
export const smallRequestBodyText = (reference: string) =>
  JSON.stringify(requestBody({ reference, keys: 0, memo: 0 }))

/**
 * Imports the transactions for `merchantId` through importJsonLines (one JSON Lines
 * file, written to a temporary folder first) and returns their ids and the import's
 * figures.
 */
export async function importHistoryTransactions(
  merchantId: number,
  transactions: HistoryTransaction[]
) {
  const { importJsonLines } = await import('#services/collections/import/import_transactions')
  const { default: db } = await import('@adonisjs/lucid/services/db')
  const folder = await mkdtemp(join(tmpdir(), 'history-bench-'))
  try {
    const file = join(folder, 'history.jsonl')
    await pipeline(
      Readable.from(
        (function* () {
          for (const transaction of transactions) yield* linesOf(merchantId, transaction)
        })()
      ),
      createWriteStream(file)
    )
    const { size: fileBytes } = await stat(file)
    const started = performance.now()
    const result = await importJsonLines(createReadStream(file, { highWaterMark: 1024 * 1024 }))
    const seconds = (performance.now() - started) / 1000
    const ids: Record<string, string> = {}
    for (const transaction of transactions) {
      const row = await db
        .from('transactions')
        .where({
          merchant_id: merchantId,
          environment: 'live',
          merchant_transaction_id: transaction.reference,
        })
        .select('id')
        .firstOrFail()
      ids[transaction.reference] = String(row.id)
    }
    return { ids, fileBytes, seconds, result }
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}

/** Sizes of the stored evidence of a transaction (one statement). */
export async function storedSizes(transactionId: string) {
  const { default: db } = await import('@adonisjs/lucid/services/db')
  const result = await db.rawQuery(
    `SELECT count(*)::int AS events, max(snapshot_size)::int AS snapshot_bytes,
            max(length(projection_ciphertext))::int AS projection_bytes
       FROM exchange_evidence WHERE transaction_id = ?`,
    [transactionId]
  )
  return result.rows[0] as { events: number; snapshot_bytes: number; projection_bytes: number }
}
