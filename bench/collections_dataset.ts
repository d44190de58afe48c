/*
| Collections dataset generator (never in CI).
|
|   node --import=@poppinss/ts-exec bench/collections_dataset.ts \
|     --transactions=1000000 --events=3000000 [--noise-merchants=4] \
|     [--noise-transactions=100000] [--merchant=ID] [--seed=1] [--out=FILE|-]
|
| Without --out: creates a bench merchant (or uses --merchant=ID) and loads the
| transactions and their evidence straight into `transactions` and
| `evidence_records` and `evidence_bodies` with COPY (pg-copy-streams), plus noise merchants with their own
| transactions (3 events each) so that queries must scope by merchant. Every line
| goes through the import's own preparation (prepareLine: check, seal, project), so the
| rows are exactly what `collections:import` would store. Prints one JSON object
| (merchant ids, counts, seconds). Uses DATABASE_URL and APP_KEY like the app (the
| server must share APP_KEY to open the snapshots).
|
| With --out: writes the main merchant's lines as JSON Lines (decisions.md §5) to
| FILE or standard output instead, for `node ace collections:import`.
*/
import { createWriteStream } from 'node:fs'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { DateTime } from 'luxon'
import { syntheticLines } from './collections_synthetic.js'
import { bootApp } from './boot_app.js'
import {
  DIRECT_BODY_COLUMNS,
  DIRECT_EVENT_COLUMNS,
  DIRECT_TRANSACTION_COLUMNS,
} from '#services/collections/import/import_columns'
import { copyRows } from '#services/collections/import/copy_stream'

export function flag(name: string, fallback?: string): string | undefined {
  const prefix = `--${name}=`
  const found = process.argv.find((argument) => argument.startsWith(prefix))
  return found ? found.slice(prefix.length) : fallback
}

const numberFlag = (name: string, fallback: number) => {
  const value = Number(flag(name, String(fallback)))
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} must be a whole number`)
  return value
}

/** The columns of the rows finalRows makes: the import's direct COPY columns. */
export const TRANSACTION_COLUMNS = DIRECT_TRANSACTION_COLUMNS
export const EVIDENCE_COLUMNS = DIRECT_EVENT_COLUMNS
export const BODY_COLUMNS = DIRECT_BODY_COLUMNS

/**
 * The app's pieces, loaded after boot (services resolve only once the app is booted).
 */
export async function appPieces() {
  const { default: db } = await import('@adonisjs/lucid/services/db')
  const { seal } = await import('#services/collections/history/evidence_snapshot')
  const { retentionMonths } = await import('#services/collections/import/import_transactions')
  const { prepareLine, directTransactionRow } =
    await import('#services/collections/import/import_preparation')
  const { directEventRow, directBodyRow } =
    await import('#services/collections/import/direct_writes')
  const { ensureBodyPartitions } = await import('#services/collections/history/evidence_storage')
  const catalogue = await db.from('currencies').select('code')
  const context = {
    currencies: new Set(catalogue.map((row: { code: string }) => row.code)),
    months: retentionMonths(),
    seal,
  }
  const loadedAt = DateTime.utc().toISO()

  /**
   * COPY rows of the final tables for one line, given the transaction's reserved id:
   * the line prepared as the import prepares it, in the rows of its direct paths: its
   * transaction, its events' records and bodies, and the months these go under (whose
   * partitions must exist: ensureBodyPartitions).
   */
  function finalRows(line: Record<string, unknown>, transactionId: number) {
    const prepared = prepareLine(0, JSON.stringify(line), context)
    const months: string[] = []
    for (const event of prepared.events) {
      if (event.retainMonth === null) {
        throw new Error('a retain_until outside years 1-9999: not a synthetic line')
      }
      months.push(event.retainMonth)
    }
    return {
      transaction: directTransactionRow(prepared.transaction, transactionId),
      events: prepared.events.map((event, index) =>
        directEventRow(event, loadedAt, transactionId, months[index])
      ),
      bodies: prepared.events.map((event, index) => directBodyRow(event, months[index])),
      months,
    }
  }

  return { db, finalRows, ensureBodyPartitions }
}

type Pieces = Awaited<ReturnType<typeof appPieces>>

/** Reserves `count` consecutive transaction ids; returns the first. */
export async function reserveTransactionIds(client: any, count: number): Promise<number> {
  const result = await client.query(
    `SELECT nextval(pg_get_serial_sequence('transactions', 'id')) AS first`
  )
  const first = Number(result.rows[0].first)
  await client.query(`SELECT setval(pg_get_serial_sequence('transactions', 'id'), $1)`, [
    first + count,
  ])
  return first
}

/** Loads one merchant's synthetic year straight into the final tables (two COPYs). */
export async function loadMerchant(
  pieces: Pieces,
  options: {
    merchantId: number
    transactions: number
    events: number
    seed: number
    prefix: string
  }
) {
  const knex: any = pieces.db.connection().getWriteClient()
  const client = await knex.client.acquireConnection()
  try {
    await client.query(`SET statement_timeout = 0`)
    const firstId = await reserveTransactionIds(client, options.transactions)
    const lines = () => syntheticLines({ ...options })
    await copyRows(
      client,
      'transactions',
      TRANSACTION_COLUMNS,
      (function* () {
        let id = firstId
        for (const line of lines()) {
          // Only the transaction row is needed in this pass: skip sealing the events.
          yield pieces.finalRows({ ...line, events: [] }, id++).transaction
        }
      })()
    )
    // Records and bodies by chunks of lines, each chunk's partitions created first.
    let id = firstId
    let chunk: Array<ReturnType<Pieces['finalRows']>> = []
    const flush = async () => {
      await pieces.ensureBodyPartitions(chunk.flatMap((rows) => rows.months))
      await copyRows(
        client,
        'evidence_records',
        EVIDENCE_COLUMNS,
        chunk.flatMap((rows) => rows.events)
      )
      await copyRows(
        client,
        'evidence_bodies',
        BODY_COLUMNS,
        chunk.flatMap((rows) => rows.bodies)
      )
      chunk = []
    }
    for (const line of lines()) {
      chunk.push(pieces.finalRows(line, id++))
      if (chunk.length === 5_000) await flush()
    }
    if (chunk.length > 0) await flush()
  } finally {
    await client.query(`SET statement_timeout = DEFAULT`).catch(() => {})
    await knex.client.releaseConnection(client)
  }
}

export async function createBenchMerchant(name: string) {
  const { default: Merchant } = await import('#models/merchant')
  const merchant = await Merchant.create({
    name,
    email: `${name.toLowerCase().replaceAll(/[^a-z0-9]+/g, '-')}-${Date.now()}@bench.test`,
    currency: 'PHP',
    isActive: true,
    isProduction: false,
  })
  return merchant.id
}

async function main() {
  const transactions = numberFlag('transactions', 1_000_000)
  const events = numberFlag('events', transactions * 3)
  const noiseMerchants = numberFlag('noise-merchants', 4)
  const noiseTransactions = numberFlag('noise-transactions', Math.ceil(transactions / 10))
  const seed = numberFlag('seed', 1)
  const out = flag('out')

  const { shutdown } = await bootApp()
  try {
    const merchantId = flag('merchant')
      ? numberFlag('merchant', 0)
      : await createBenchMerchant('Bench Merchant')
    if (out) {
      const target = out === '-' ? process.stdout : createWriteStream(out)
      await pipeline(
        Readable.from(
          (function* () {
            for (const line of syntheticLines({
              merchantId,
              transactions,
              events,
              seed,
              prefix: 'ORD',
            })) {
              yield JSON.stringify(line) + '\n'
            }
          })()
        ),
        target
      )
      if (out !== '-') {
        console.log(JSON.stringify({ merchant_id: merchantId, transactions, events, file: out }))
      }
      return
    }

    const pieces = await appPieces()
    const started = performance.now()
    await loadMerchant(pieces, { merchantId, transactions, events, seed, prefix: 'ORD' })
    const mainSeconds = (performance.now() - started) / 1000
    const noise: number[] = []
    for (let index = 0; index < noiseMerchants; index++) {
      const id = await createBenchMerchant(`Noise Merchant ${index + 1}`)
      noise.push(id)
      await loadMerchant(pieces, {
        merchantId: id,
        transactions: noiseTransactions,
        events: noiseTransactions * 3,
        seed: seed + index + 1,
        prefix: 'NOISE',
      })
    }
    await pieces.db.rawQuery('ANALYZE transactions')
    await pieces.db.rawQuery('ANALYZE evidence_records; ANALYZE evidence_bodies')
    console.log(
      JSON.stringify({
        merchant_id: merchantId,
        transactions,
        events,
        noise_merchant_ids: noise,
        noise_transactions_each: noiseTransactions,
        main_seconds: Number(mainSeconds.toFixed(1)),
        total_seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      })
    )
  } finally {
    await shutdown()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main()
}
