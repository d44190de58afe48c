/*
| The cost of `history:reproject` (reprojectHistory) as the evidence grows: a run over
| every row of `--events` events, then of twice as many, each row due (its projection
| version cleared). A run whose cost grows with the rows alone takes about the same
| time per row at both sizes; one whose batches read again the rows done before them
| takes about twice as long per row at the double size.
|
|   DATABASE_URL=... node --import=@poppinss/ts-exec bench/reproject.ts \
|     [--events=10000] [--batch-rows=200] [--smoke]
|
| Loads transactions of one validated request each (a body of about 200 bytes) through
| the import. Prints one JSON object per size. Empties the evidence and transactions of
| its database: use one of its own.
*/
import { Readable } from 'node:stream'
import { bootApp } from './boot_app.js'
import { flag } from './collections_dataset.js'
import { expectFigures, sized } from './smoke.js'

const EVENTS = Number(flag('events', String(sized(10_000, 300))))
const BATCH_ROWS = Number(flag('batch-rows', '200'))
if (!Number.isSafeInteger(EVENTS) || EVENTS < 100) throw new Error('--events must be 100 or more')
if (!Number.isSafeInteger(BATCH_ROWS) || BATCH_ROWS < 1) {
  throw new Error('--batch-rows must be a whole number of 1 or more')
}

const { shutdown } = await bootApp()
try {
  const { default: db } = await import('@adonisjs/lucid/services/db')
  const { importJsonLines } = await import('#services/collections/import/import_transactions')
  const { reprojectHistory } = await import('#services/collections/history/reproject_history')
  const { MerchantFactory } = await import('#database/factories/merchant_factory')

  const merchant = await MerchantFactory.create()
  function* lines(count: number) {
    for (let index = 0; index < count; index++) {
      const reference = `REPROJECT-${String(index).padStart(8, '0')}`
      const day = String(1 + (index % 28)).padStart(2, '0')
      yield (
        JSON.stringify({
          merchant_id: merchant.id,
          environment: 'live',
          merchant_transaction_id: reference,
          amount: '1500.00',
          currency: 'PHP',
          payment_status: 'PAID',
          legacy_status: null,
          payment_brand: 'gcash',
          archived: false,
          created_at: `2026-01-${day}T10:00:00+08:00`,
          updated_at: null,
          events: [
            {
              kind: 'merchant_request.validated',
              captured_at: `2026-01-${day}T10:00:00.120+08:00`,
              schema_version: 2,
              capture_format: 'sanitized_snapshot',
              content_type: 'application/json',
              body: {
                merchant_transaction_id: reference,
                amount: '1500.00',
                currency: 'PHP',
                payment_brand: 'gcash',
                customer: { email: `buyer${index}@example.com` },
              },
              retain_until: `2030-01-${day}T10:00:00+08:00`,
              legal_hold: false,
            },
          ],
        }) + '\n'
      )
    }
  }

  /** Loads `count` events afresh, makes every one due, and times a run over them. */
  async function measure(count: number) {
    await db.rawQuery('TRUNCATE evidence_records, evidence_bodies, transactions CASCADE')
    await importJsonLines(Readable.from(lines(count)))
    await db.rawQuery('UPDATE evidence_bodies SET projection_version = NULL')
    await db.rawQuery('VACUUM (ANALYZE) evidence_records, evidence_bodies')
    const started = process.hrtime.bigint()
    const result = await reprojectHistory({ batchRows: BATCH_ROWS })
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    if (result.reprojected !== count) {
      throw new Error(`re-projected ${result.reprojected} of ${count} rows`)
    }
    const figures = {
      events: count,
      batch_rows: BATCH_ROWS,
      seconds: Number(seconds.toFixed(3)),
      microseconds_per_row: Math.round((seconds * 1e6) / count),
    }
    console.log(JSON.stringify(figures))
    return figures
  }

  const small = await measure(EVENTS)
  const large = await measure(EVENTS * 2)
  const growth = large.microseconds_per_row / small.microseconds_per_row
  console.log(JSON.stringify({ per_row_at_double_size: Number(growth.toFixed(2)) }))
  expectFigures('reproject', {
    small: small.seconds,
    large: large.seconds,
    growth,
  })
} finally {
  await shutdown()
}
