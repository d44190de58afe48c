/*
| The datasets of bench/growth.ts (issue 40): N transactions of several merchants over
| ten years, built through the import an operator runs (`node ace collections:import
| FILE` of the production build), one chunk at a time, each chunk timed, in a database
| of its own that later runs reuse.
|
| - Merchants: five, holding 60, 15, 12, 8 and 5 % of the transactions.
| - Time: ten years up to DATASET_END, the density growing with time (a business that
|   grows: the last year holds about 14 % of the transactions), in the order they
|   happened: transaction i of N falls at the i/N quantile of that density, so each
|   chunk is the next slice of time, as a merchant's transactions arrive (the tenth
|   million is the newest). Both sizes cover the same ten years: ten times the
|   transactions is ten times the rows of any month.
| - Transaction fields: those of the collections generator (collections_synthetic.ts:
|   statuses with lowercase and legacy codes, brands, amounts, references with `%`).
| - Evidence: 12.6 % of the transactions of every period (as many events in all as 90 %
|   of the last twelve months' would be, spread so that every chunk carries alike)
|   carry the merchant's request and the synchronous response, retained the default
|   twelve months from capture; 60 % of those a webhook (queued, and the merchant's
|   reply; 5 % a failed first attempt and a retry). Request bodies: 75 % as generated (~400 bytes), 22 %
|   padded with line items to 1-4 KB, 3 % to 4-32 KB, and one in 40,000 to 1.1-2.0 MB,
|   near the 2 MiB read bound of a sealed snapshot.
| - Deterministic: transaction i depends only on i, N and the seed, so any chunk can be
|   made again on its own (a stopped build resumes).
| - Generator 2 spread every chunk over the whole ten years (a backfill of history):
|   bench/results/growth_2026-11-28.md has what that costs the import as tables grow.
|
| Each database holds schema `bench_growth`: `dataset` (seed, chunk size, merchants, the
| APP_KEY's fingerprint, when the build ended) and `chunks` (one row per chunk begun,
| its import time once done). A dataset is reused when its row says it is complete with
| the same seed and chunk size; a build that stopped resumes at its first chunk not
| done (a chunk begun and not finished is imported again, which the import allows, and
| marked `resumed`: its time is not a clean figure).
*/
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { DateTime } from 'luxon'
import pg from 'pg'
import { eventsOf, random, syntheticLines } from './collections_synthetic.js'

/** Fixed, so that a dataset built one day reads the same the next. */
export const DATASET_END = DateTime.fromISO('2026-11-28T00:00:00+08:00', { setZone: true })
const DATASET_START = DATASET_END.minus({ years: 10 })
export const MERCHANT_SHARES = [0.6, 0.15, 0.12, 0.08, 0.05]
/** 90 % of the last year's 14 % of the transactions, spread over every period. */
const EVIDENCE_SHARE = 0.126
const WEBHOOK_SHARE = 0.6
const RETRY_SHARE = 0.05
/** Bumped when the generator changes, so that a dataset of an older one is not reused. */
const GENERATOR_VERSION = 3

/** A line of the import format (docs/import-format.md), as collections_synthetic.ts makes it. */
interface GrowthLine {
  merchant_id: number
  environment: string
  merchant_transaction_id: string
  amount: string | null
  currency: string
  payment_status: string | null
  legacy_status: string | null
  payment_brand: string
  archived: boolean
  created_at: string | null
  updated_at: string
  events: Array<Record<string, unknown>>
}

/** One 32-bit seed per transaction, so that transaction i never depends on the others. */
const seedOf = (seed: number, index: number) =>
  (Math.imul(index + 1, 0x9e3779b1) ^ Math.imul(seed, 0x85ebca6b)) >>> 0

function slotOf(roll: number) {
  let left = roll
  for (const [slot, share] of MERCHANT_SHARES.entries()) {
    left -= share
    if (left < 0) return slot
  }
  return MERCHANT_SHARES.length - 1
}

/** Bytes a request body is padded to; 0 keeps it as generated. */
function requestBodyBytes(next: () => number) {
  const roll = next()
  if (roll < 1 / 40_000) return 1_100_000 + Math.floor(next() * 900_000)
  if (roll < 0.03) return 4_000 + Math.floor(next() * 28_000)
  if (roll < 0.25) return 1_000 + Math.floor(next() * 3_000)
  return 0
}

/** Line items until the body's JSON reaches about `bytes`. */
function padded(body: Record<string, unknown>, bytes: number) {
  const items: Array<Record<string, unknown>> = []
  let length = JSON.stringify(body).length
  while (length < bytes) {
    const item = {
      sku: `SKU-${100_000 + items.length}`,
      name: `Item ${items.length + 1}`,
      quantity: 1 + (items.length % 4),
      unit_price: `${10 + (items.length % 990)}.50`,
    }
    items.push(item)
    length += JSON.stringify(item).length + 1
  }
  return { ...body, items }
}

function webhookEvents(next: () => number, index: number, tx: GrowthLine, at: DateTime) {
  const eventId = `evt_${index}`
  const status = String(tx.payment_status ?? '').toUpperCase()
  const queued = {
    kind: 'merchant_notification.queued',
    captured_at: at.toISO(),
    schema_version: 2,
    capture_format: 'sanitized_snapshot',
    content_type: 'application/json',
    event_id: eventId,
    delivery_state: 'delivered',
    body: {
      merchant_transaction_id: tx.merchant_transaction_id,
      amount: tx.amount ?? '0.00',
      currency: tx.currency,
      payment_brand: tx.payment_brand,
      payment_status: status === 'PAID' || status === 'REJECTED' ? status : 'PENDING',
      provider_reference: `PRV${index}`,
    },
  }
  const reply = (attempt: number, ok: boolean, after: number) => ({
    kind: 'merchant_notification.response',
    captured_at: at.plus({ milliseconds: after }).toISO(),
    schema_version: 2,
    capture_format: 'sanitized_snapshot',
    content_type: 'application/json',
    event_id: eventId,
    attempt_number: attempt,
    http_status: ok ? 200 : 500,
    duration_ms: 40 + Math.floor(next() * 1_500),
    delivery_state: ok ? 'delivered' : 'failed',
    body_capture_status: 'captured',
    body: ok ? { received: true } : { error: 'temporarily unavailable' },
  })
  return next() < RETRY_SHARE
    ? [queued, reply(1, false, 900), reply(2, true, 60_900)]
    : [queued, reply(1, true, 900)]
}

/** Transaction `index` of a dataset of `size`: its line, its merchant's slot and its events. */
export function growthTransaction(
  index: number,
  size: number,
  seed: number,
  merchantIds: number[]
) {
  const txSeed = seedOf(seed, index)
  const next = random(txSeed ^ 0x2545f491)
  const slot = slotOf(next())
  const line = syntheticLines({
    merchantId: merchantIds[slot],
    transactions: 1,
    events: 0,
    seed: txSeed,
    prefix: slot === 0 ? 'ORD' : `M${slot}`,
    end: DATASET_END,
  }).next().value as GrowthLine
  // Growing density over the ten years, in order: the inverse of F(t) = (t + t²) / 2
  // at the transaction's place among the dataset's.
  const position = (Math.sqrt(1 + 8 * ((index + next()) / size)) - 1) / 2
  const createdAt = DateTime.fromMillis(
    DATASET_START.toMillis() +
      Math.floor(position * (DATASET_END.toMillis() - DATASET_START.toMillis())),
    { zone: next() < 0.7 ? 'UTC+8' : 'UTC' }
  )
  line.merchant_transaction_id = line.merchant_transaction_id.replace(
    /00000001$/,
    String(index + 1).padStart(10, '0')
  )
  // Every transaction has an amount: a PAID one without makes the metrics of its range
  // a 503 (portal-api.md › Metrics), which chart_zones.ts and reporting avoid as well.
  line.amount ??= '100.00'
  if (line.created_at !== null) line.created_at = createdAt.toISO()
  line.updated_at = createdAt.plus({ seconds: 5 + Math.floor(next() * 600) }).toISO()!
  if (next() < EVIDENCE_SHARE) {
    const [request, response] = eventsOf(next, index, 2, line, createdAt)
    const bytes = requestBodyBytes(next)
    if (bytes > 0) request.body = padded(request.body as Record<string, unknown>, bytes)
    line.events = [request, response]
    if (next() < WEBHOOK_SHARE) {
      line.events.push(...webhookEvents(next, index, line, createdAt.plus({ seconds: 40 })))
    }
  }
  return { line, slot, events: line.events.length }
}

/** The JSON Lines of transactions [first, first + count), in pieces of about 1 MiB. */
function* chunkText(
  first: number,
  count: number,
  size: number,
  seed: number,
  merchantIds: number[],
  tally: { events: number }
) {
  let piece: string[] = []
  let length = 0
  for (let index = first; index < first + count; index++) {
    const { line, events } = growthTransaction(index, size, seed, merchantIds)
    tally.events += events
    const text = JSON.stringify(line) + '\n'
    piece.push(text)
    length += text.length
    if (length >= 1 << 20) {
      yield piece.join('')
      piece = []
      length = 0
    }
  }
  if (piece.length > 0) yield piece.join('')
}

export interface ChunkFigures {
  chunk: number
  transactions: number
  events: number
  file_mib: number
  /** The command's own duration_ms (from reading the file to its last commit), in s. */
  import_seconds: number | null
  resumed: boolean
  load_average: string
  /** The cluster's WAL written during the import (MiB), and its full-page images. */
  wal_mib: number | null
  wal_fpi: number | null
}

export interface Dataset {
  name: string
  url: string
  size: number
  merchantIds: number[]
  chunks: ChunkFigures[]
  /** Chunks imported by this run. */
  builtNow: number
}

/** `node ace.js ...` of the production build on one database; its standard output. */
export function buildAce(url: string, appKey: string, args: string[], input?: string) {
  return execFileSync('node', ['ace.js', ...args], {
    cwd: 'build',
    env: { ...process.env, NODE_ENV: 'production', APP_KEY: appKey, DATABASE_URL: url },
    encoding: 'utf8',
    input,
    maxBuffer: 64 * 1024 * 1024,
  })
}

/** The JSON object an operator command prints last. */
export const lastJson = (output: string) => JSON.parse(output.trim().split('\n').pop()!)

const fingerprint = (appKey: string) =>
  createHash('sha256').update(appKey).digest('hex').slice(0, 16)

/**
 * Creates (when missing), migrates and fills the database `url` up to `size`
 * transactions, `chunk` at a time, or reuses it as it is; `log` hears each chunk.
 */
export async function ensureDataset(options: {
  admin: pg.Client
  name: string
  url: string
  size: number
  chunk: number
  seed: number
  appKey: string
  log: (line: string) => void
}): Promise<Dataset> {
  const { admin, name, url, size, chunk, seed, appKey, log } = options
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`)
  buildAce(url, appKey, ['migration:run', '--force'])
  const sql = new pg.Client({ connectionString: url })
  await sql.connect()
  try {
    await sql.query(`CREATE SCHEMA IF NOT EXISTS bench_growth`)
    await sql.query(`CREATE TABLE IF NOT EXISTS bench_growth.dataset (
      seed int NOT NULL, chunk_size int NOT NULL, generator int NOT NULL,
      merchant_ids int[] NOT NULL, app_key text NOT NULL, ready_at timestamptz)`)
    await sql.query(`CREATE TABLE IF NOT EXISTS bench_growth.chunks (
      chunk int PRIMARY KEY, transactions int NOT NULL, events int, file_bytes bigint,
      import_ms int, resumed boolean NOT NULL DEFAULT false, load_average text,
      imported_at timestamptz)`)
    await sql.query(
      `ALTER TABLE bench_growth.chunks ADD COLUMN IF NOT EXISTS wal_bytes bigint,
         ADD COLUMN IF NOT EXISTS wal_fpi bigint`
    )
    const readRow = async () => {
      const { rows } = await sql.query('SELECT * FROM bench_growth.dataset')
      return rows[0]
    }
    let row = await readRow()
    if (!row) {
      const merchantIds = MERCHANT_SHARES.map(
        (share, slot) =>
          lastJson(
            buildAce(url, appKey, [
              'merchant:create',
              `--name=Growth Merchant ${slot + 1} (${share * 100} %)`,
              `--email=growth-${slot + 1}@merchant.test`,
            ])
          ).id as number
      )
      await sql.query(
        `INSERT INTO bench_growth.dataset (seed, chunk_size, generator, merchant_ids, app_key)
         VALUES ($1, $2, $3, $4, $5)`,
        [seed, chunk, GENERATOR_VERSION, merchantIds, fingerprint(appKey)]
      )
      row = await readRow()
    }
    if (
      row.seed !== seed ||
      row.chunk_size !== chunk ||
      row.generator !== GENERATOR_VERSION ||
      row.app_key !== fingerprint(appKey)
    ) {
      throw new Error(
        `${name} was built with seed ${row.seed}, chunks of ${row.chunk_size}, generator ` +
          `${row.generator} and an APP_KEY with fingerprint ${row.app_key}: give the same ` +
          `--seed, --chunk and APP_KEY, or drop the database to build it again`
      )
    }
    const merchantIds: number[] = row.merchant_ids
    const chunks = Math.ceil(size / chunk)
    let builtNow = 0
    const folder = await mkdtemp(join(tmpdir(), 'growth-dataset-'))
    try {
      for (let index = 0; index < chunks; index++) {
        const done = await sql.query('SELECT import_ms FROM bench_growth.chunks WHERE chunk = $1', [
          index + 1,
        ])
        if (typeof done.rows[0]?.import_ms === 'number') continue
        const first = index * chunk
        const count = Math.min(chunk, size - first)
        const tally = { events: 0 }
        const file = join(folder, `chunk-${index + 1}.jsonl`)
        await pipeline(
          Readable.from(chunkText(first, count, size, seed, merchantIds, tally)),
          createWriteStream(file)
        )
        const { size: fileBytes } = await stat(file)
        await sql.query(
          `INSERT INTO bench_growth.chunks (chunk, transactions, events, file_bytes) VALUES ($1, $2, $3, $4)
           ON CONFLICT (chunk) DO UPDATE SET resumed = true`,
          [index + 1, count, tally.events, fileBytes]
        )
        const load = loadavg()
          .map((value) => value.toFixed(1))
          .join(' / ')
        // The cluster's WAL during the import (the run's own on a quiet machine): what
        // the import's writes cost beyond its time, full-page images apart.
        const walBefore = await sql.query('SELECT wal_bytes, wal_fpi FROM pg_stat_wal')
        const result = lastJson(buildAce(url, appKey, ['collections:import', file]))
        const walAfter = await sql.query('SELECT wal_bytes, wal_fpi FROM pg_stat_wal')
        const wal = {
          bytes: Number(walAfter.rows[0].wal_bytes) - Number(walBefore.rows[0].wal_bytes),
          fpi: Number(walAfter.rows[0].wal_fpi) - Number(walBefore.rows[0].wal_fpi),
        }
        if (result.transactions !== count || result.events !== tally.events) {
          throw new Error(
            `chunk ${index + 1}: imported ${JSON.stringify(result)}, expected ${count} and ${tally.events}`
          )
        }
        await sql.query(
          `UPDATE bench_growth.chunks SET import_ms = $2, load_average = $3, imported_at = now(),
             wal_bytes = $4, wal_fpi = $5 WHERE chunk = $1`,
          [index + 1, result.duration_ms, load, wal.bytes, wal.fpi]
        )
        await rm(file)
        builtNow++
        log(
          `${name}: chunk ${index + 1}/${chunks} (${count} transactions, ${tally.events} events, ` +
            `${(fileBytes / 2 ** 20).toFixed(0)} MiB) imported in ${(result.duration_ms / 1000).toFixed(1)} s, ` +
            `WAL ${(wal.bytes / 2 ** 20).toFixed(0)} MiB (${wal.fpi} full-page images), load ${load}`
        )
      }
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
    if (builtNow > 0 || row.ready_at === null) {
      // As autovacuum would in time: statistics and visibility maps for the reads.
      await sql.query('VACUUM (ANALYZE)')
      await sql.query('UPDATE bench_growth.dataset SET ready_at = now()')
    }
    const figures = await sql.query(
      `SELECT chunk, transactions, events, file_bytes, import_ms, resumed, load_average,
         wal_bytes, wal_fpi FROM bench_growth.chunks ORDER BY chunk`
    )
    return {
      name,
      url,
      size,
      merchantIds,
      builtNow,
      chunks: figures.rows.map((chunkRow) => ({
        chunk: chunkRow.chunk,
        transactions: chunkRow.transactions,
        events: chunkRow.events,
        file_mib: +(Number(chunkRow.file_bytes) / 2 ** 20).toFixed(1),
        import_seconds: chunkRow.import_ms === null ? null : chunkRow.import_ms / 1000,
        resumed: chunkRow.resumed,
        load_average: chunkRow.load_average,
        wal_mib:
          chunkRow.wal_bytes === null ? null : Math.round(Number(chunkRow.wal_bytes) / 2 ** 20),
        wal_fpi: chunkRow.wal_fpi === null ? null : Number(chunkRow.wal_fpi),
      })),
    }
  } finally {
    await sql.end()
  }
}
