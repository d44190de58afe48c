/*
| The collections import (decisions.md §5; `node ace collections:import`, the demo
| seed and the benchmarks call it). JSON Lines in, one transaction per line with its
| exchange evidence.
|
| - Streams: lines are read, checked (import_line.ts) and sealed on a preparation
|   thread (prepared_lines.ts), a few chunks of input ahead, and written in batches
|   through PostgreSQL COPY (pg-copy-streams: the fastest way into
|   PostgreSQL, one round trip per batch instead of one per row). New rows go straight
|   into the final tables (a first import writes each row once); whatever may already
|   be stored goes into two session temporary staging tables, then is merged with
|   plain SQL (StagingSession.write). Memory is bounded by a batch (lines and bytes)
|   and the next one being read while the previous is written.
| - Re-import (idempotent on merchant_id, environment, merchant_transaction_id): an
|   existing transaction takes the line's values unless the stored row is newer
|   (its updated_at is later than the line's); an identical line writes nothing.
|   Evidence is immutable: an event whose id is already stored is left as it is
|   (snapshot, retention, hold, purge). Events without an id get one derived from the
|   transaction key, their position and capture (import_line.ts), so re-imports match.
| - A bad line stops the import with an error naming it. Every line before it is
|   imported (each batch commits on its own); nothing of the bad line or after it is.
|   Since the import is idempotent, the operator fixes the line and runs the same
|   file again.
| - retain_until defaults to captured_at + HISTORY_RETENTION_MONTHS (12).
*/
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { from as copyFrom } from 'pg-copy-streams'
import db from '@adonisjs/lucid/services/db'
import env from '#start/env'
import { ImportLineError } from '#services/collections/import_line'
import {
  copyValue,
  type PreparedEvent,
  type PreparedLine,
} from '#services/collections/import_preparation'
import { preparedLines } from '#services/collections/prepared_lines'
import { audit } from '#services/audit/audit_trail'
import { SYSTEM_ACTOR } from '#auth/actor'

export interface ImportProgress {
  lines: number
  bytes: number
}

export interface ImportOptions {
  onProgress?: (progress: ImportProgress) => void
  /** Lines per batch (COPY + merge + commit). */
  batchLines?: number
  /** When given, milliseconds spent in each step of the batch writes are added here (bench). */
  timings?: Record<string, number>
  /** Where lines are prepared (prepared_lines.ts): on the thread by default. */
  preparation?: 'thread' | 'here'
}

export interface ImportResult {
  /** Transaction lines imported (created, updated or already up to date). */
  transactions: number
  /** Events on those lines (created or already stored). */
  events: number
  transactions_created: number
  transactions_updated: number
  transactions_unchanged: number
  events_created: number
  events_unchanged: number
  lines: number
  bytes: number
}

/** Bounds of one batch: whichever is reached first. */
const BATCH_LINES = 5_000
const BATCH_BYTES = 8 * 1024 * 1024
const PROGRESS_EVERY_LINES = 1_000

export class ImportError extends Error {}

export function retentionMonths(): number {
  const months = env.get('HISTORY_RETENTION_MONTHS') ?? 12
  if (!Number.isInteger(months) || months < 1 || months > 1200) {
    throw new ImportError(
      'HISTORY_RETENTION_MONTHS must be a whole number of months from 1 to 1200'
    )
  }
  return months
}

const STAGE_TRANSACTIONS = 'collections_import_transactions'
const STAGE_EVENTS = 'collections_import_events'

const TRANSACTION_COLUMNS = [
  'line',
  'merchant_id',
  'environment',
  'merchant_transaction_id',
  'amount',
  'currency',
  'payment_status',
  'legacy_status',
  'payment_brand',
  'is_archived',
  'is_credited',
  'created_at',
  'updated_at',
]
/** An event's values common to staging and to a direct COPY, in this order. */
const EVENT_CORE_COLUMNS = [
  'id',
  'merchant_id',
  'environment',
  'kind',
  'source',
  'direction',
  'captured_at',
  'capture_format',
  'schema_version',
  'snapshot_ciphertext',
  'snapshot_size',
  'projection_ciphertext',
  'projection_version',
  'content_type',
  'body_capture_status',
  'event_id',
  'attempt_number',
  'http_status',
  'delivery_state',
  'duration_ms',
  'is_repeated_request',
  'legal_hold',
  'purged_at',
]
/** A direct COPY into transactions: the staging columns with the id for the line. */
const DIRECT_TRANSACTION_COLUMNS = ['id', ...TRANSACTION_COLUMNS.slice(1)]
/** Staging row: where it came from, its transaction's reference, the given retain_until. */
const STAGE_EVENT_COLUMNS = [
  'line',
  'position',
  'merchant_transaction_id',
  'retain_until',
  ...EVENT_CORE_COLUMNS,
]
/** Direct row into exchange_evidence: the core, then what only the database knew. */
const DIRECT_EVENT_COLUMNS = [...EVENT_CORE_COLUMNS, 'retain_until', 'created_at', 'transaction_id']

const CREATE_STAGING = `
CREATE TEMP TABLE IF NOT EXISTS ${STAGE_TRANSACTIONS} (
  line integer NOT NULL,
  merchant_id bigint NOT NULL,
  environment varchar(4) NOT NULL,
  merchant_transaction_id varchar(100) NOT NULL,
  amount numeric(14, 2),
  currency char(3) NOT NULL,
  payment_status varchar(32),
  legacy_status varchar(32),
  payment_brand varchar(100) NOT NULL,
  is_archived boolean NOT NULL,
  is_credited boolean NOT NULL,
  created_at timestamptz,
  updated_at timestamptz
) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS ${STAGE_EVENTS} (
  line integer NOT NULL,
  position integer NOT NULL,
  id char(26) NOT NULL,
  merchant_id bigint NOT NULL,
  environment varchar(4) NOT NULL,
  merchant_transaction_id varchar(100) NOT NULL,
  kind varchar(64) NOT NULL,
  source varchar(32) NOT NULL,
  direction varchar(16) NOT NULL,
  captured_at timestamptz NOT NULL,
  capture_format varchar(64) NOT NULL,
  schema_version integer NOT NULL,
  snapshot_ciphertext text,
  snapshot_size integer,
  projection_ciphertext text,
  projection_version smallint,
  content_type varchar(255),
  body_capture_status varchar(64),
  event_id varchar(128),
  attempt_number integer,
  http_status integer,
  delivery_state varchar(16),
  duration_ms integer,
  is_repeated_request boolean,
  retain_until timestamptz,
  legal_hold boolean NOT NULL,
  purged_at timestamptz
) ON COMMIT DELETE ROWS;`

/**
 * Upsert of the batch's transactions. Duplicates inside one batch keep the line a
 * sequential import would keep (newest updated_at, then the later line).
 */
const MERGE_TRANSACTIONS = `
WITH source AS (
  SELECT DISTINCT ON (merchant_id, environment, merchant_transaction_id) *
  FROM ${STAGE_TRANSACTIONS}
  ORDER BY merchant_id, environment, merchant_transaction_id, updated_at DESC NULLS LAST, line DESC
)
INSERT INTO transactions AS t (merchant_id, environment, merchant_transaction_id, amount, currency,
  payment_status, legacy_status, payment_brand, is_archived, is_credited, created_at, updated_at)
SELECT merchant_id, environment, merchant_transaction_id, amount, currency, payment_status,
  legacy_status, payment_brand, is_archived, is_credited, created_at, updated_at
FROM source
ON CONFLICT (merchant_id, environment, merchant_transaction_id) DO UPDATE SET
  amount = EXCLUDED.amount, currency = EXCLUDED.currency, payment_status = EXCLUDED.payment_status,
  legacy_status = EXCLUDED.legacy_status, payment_brand = EXCLUDED.payment_brand,
  is_archived = EXCLUDED.is_archived, is_credited = EXCLUDED.is_credited,
  created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
WHERE (t.updated_at IS NULL OR EXCLUDED.updated_at IS NULL OR EXCLUDED.updated_at >= t.updated_at)
  AND (t.amount, t.currency, t.payment_status, t.legacy_status, t.payment_brand, t.is_archived,
       t.is_credited, t.created_at, t.updated_at)
  IS DISTINCT FROM (EXCLUDED.amount, EXCLUDED.currency, EXCLUDED.payment_status,
       EXCLUDED.legacy_status, EXCLUDED.payment_brand, EXCLUDED.is_archived, EXCLUDED.is_credited,
       EXCLUDED.created_at, EXCLUDED.updated_at)
RETURNING id, merchant_id, environment, merchant_transaction_id, (xmax = 0) AS created,
  now()::text AS now`

/** New evidence only; stored evidence is never changed by an import. */
const MERGE_EVENTS = `
INSERT INTO exchange_evidence (id, merchant_id, transaction_id, environment, kind, source,
  direction, captured_at, capture_format, schema_version, snapshot_ciphertext, snapshot_size,
  projection_ciphertext, projection_version, content_type, body_capture_status, event_id,
  attempt_number, http_status, delivery_state, duration_ms, is_repeated_request, retain_until,
  legal_hold, purged_at, created_at)
SELECT s.id, s.merchant_id, t.id, s.environment, s.kind, s.source, s.direction, s.captured_at,
  s.capture_format, s.schema_version, s.snapshot_ciphertext, s.snapshot_size,
  s.projection_ciphertext, s.projection_version, s.content_type,
  s.body_capture_status, s.event_id, s.attempt_number, s.http_status, s.delivery_state,
  s.duration_ms, s.is_repeated_request,
  COALESCE(s.retain_until, LEAST(s.captured_at + make_interval(months => $1::int), '9999-12-31 23:59:59.999999+00'::timestamptz)),
  s.legal_hold, s.purged_at, now()
FROM ${STAGE_EVENTS} s
JOIN transactions t ON t.merchant_id = s.merchant_id AND t.environment = s.environment
  AND t.merchant_transaction_id = s.merchant_transaction_id
ORDER BY s.line, s.position
ON CONFLICT (id) DO NOTHING`

/** The first line whose event id is already stored for another transaction. */
const FOREIGN_EVENT_IDS = `
SELECT s.line, s.position, s.id
FROM ${STAGE_EVENTS} s
JOIN exchange_evidence e ON e.id = s.id
JOIN transactions t ON t.id = e.transaction_id
WHERE (t.merchant_id, t.environment, t.merchant_transaction_id)
  IS DISTINCT FROM (s.merchant_id, s.environment, s.merchant_transaction_id)
ORDER BY s.line, s.position
LIMIT 1`

/** One event of a batch: its line's prepared event and its transaction in the batch. */
interface StagedEvent extends PreparedEvent {
  /** Index of its line's transaction in the batch. */
  transaction: number
}

interface Batch {
  firstLine: number
  lines: number
  bytes: number
  /** Staging rows of the transactions, one per line. */
  transactions: string[]
  /** Key of each line's transaction: merchant, environment, reference (tab-separated). */
  keys: string[]
  /** merchant_transaction_id of each line, in COPY text. */
  references: string[]
  events: StagedEvent[]
  eventCount: number
}

const newBatch = (): Batch => ({
  firstLine: 0,
  lines: 0,
  bytes: 0,
  transactions: [],
  keys: [],
  references: [],
  events: [],
  eventCount: 0,
})

const stageEventRow = (batch: Batch, event: StagedEvent) =>
  `${event.line}\t${event.position}\t${batch.references[event.transaction]}\t` +
  `${event.retainGiven ?? '\\N'}\t${event.core}\n`

interface Counts {
  transactionsCreated: number
  transactionsUpdated: number
  transactionsUnchanged: number
  eventsCreated: number
  eventsUnchanged: number
  transactions: number
  events: number
}

/** The raw pg client under Lucid's pool: COPY needs it, and it shares the app's settings. */
interface PgClient {
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>
  query<T>(submittable: T): T
}

class StagingSession {
  private constructor(
    private knex: any,
    readonly client: PgClient,
    private timings?: Record<string, number>
  ) {}

  /** Whether the next batch first tries to COPY its transactions straight in. */
  private directTransactions = true

  static async open(timings?: Record<string, number>) {
    const knex: any = db.connection().getWriteClient()
    const client: PgClient = await knex.client.acquireConnection()
    const session = new StagingSession(knex, client, timings)
    try {
      await client.query(CREATE_STAGING)
    } catch (error) {
      await session.close()
      throw error
    }
    return session
  }

  /**
   * Ends the session. The batches commit with synchronous_commit off (write()); this
   * commit is synchronous and holds a transaction id, so it returns only once the WAL
   * up to it, every batch before it included, is on disk: when the import reports its
   * counts (or a bad line and "lines before it were imported"), they are durable as
   * with synchronous commits. It throws if that cannot be made sure of.
   */
  async close() {
    try {
      await this.client.query(
        `BEGIN; DROP TABLE IF EXISTS ${STAGE_TRANSACTIONS}, ${STAGE_EVENTS};
         SELECT pg_current_xact_id(); COMMIT`
      )
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      await this.knex.client.releaseConnection(this.client)
    }
  }

  private async copy(table: string, columns: string[], rows: Iterable<string>) {
    const stream = this.client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`))
    // Rows go out in chunks of about 256 KiB: one CopyData message per row would dominate.
    await pipeline(
      (function* () {
        let chunk = ''
        for (const row of rows) {
          chunk += row
          if (chunk.length >= 256 * 1024) {
            yield chunk
            chunk = ''
          }
        }
        if (chunk) yield chunk
      })(),
      stream
    )
  }

  /**
   * COPY, merge and commit one batch; returns what it changed.
   *
   * Transactions go straight in when all of the batch's are new (insertNew), else
   * through staging and the upsert, which returns the ids of those it created. The
   * events of created transactions cannot be stored yet (evidence is only ever stored with its
   * transaction), so they are COPYed straight into exchange_evidence, written once,
   * under a savepoint: a unique violation there (an event id stored for another
   * transaction, or twice in the batch) rolls it back and those events take the
   * staging merge too, which finds and reports the line. Events of transactions
   * that already existed always take the staging merge (ON CONFLICT DO NOTHING).
   */
  async write(batch: Batch, months: number): Promise<Counts> {
    const { client } = this
    const timings = this.timings
    let since = performance.now()
    const tick = (step: string) => {
      if (!timings) return
      const now = performance.now()
      timings[step] = (timings[step] ?? 0) + now - since
      since = now
    }
    try {
      // A large batch on a busy database may outlast the per-statement bound of requests.
      // Commits of batches need not wait for the disk: an import stopped by a crash is
      // run again (idempotent), and close() makes them durable before the import ends.
      await client.query(
        `BEGIN; SET LOCAL statement_timeout = '10min'; SET LOCAL synchronous_commit = off`
      )
      const createdIds = new Map<string, number | string>()
      let created = 0
      let changed = 0
      let now: string | undefined
      const straight = this.directTransactions ? await this.insertNew(batch, createdIds) : null
      tick('directTx')
      if (straight) {
        now = straight.now
        created = changed = batch.lines
      } else {
        await this.copy(STAGE_TRANSACTIONS, TRANSACTION_COLUMNS, batch.transactions)
        tick('copyTx')
        const merged = await client.query(MERGE_TRANSACTIONS)
        tick('mergeTx')
        for (const row of merged.rows) {
          if (!row.created) continue
          created++
          createdIds.set(
            `${row.merchant_id}\t${row.environment}\t${copyValue(row.merchant_transaction_id)}`,
            row.id
          )
        }
        changed = merged.rows.length
        now = merged.rows[0]?.now
        // Try the direct way again once a batch was all new.
        this.directTransactions = created === new Set(batch.keys).size
      }
      let direct: StagedEvent[] = []
      let staged: StagedEvent[] = batch.events
      if (createdIds.size > 0 && now) {
        direct = []
        staged = []
        for (const event of batch.events) {
          const fresh =
            createdIds.has(batch.keys[event.transaction]) &&
            (event.retainGiven !== null || event.retainDefault !== null)
          ;(fresh ? direct : staged).push(event)
        }
      }
      let eventsCreated = 0
      if (direct.length > 0) {
        await client.query('SAVEPOINT direct_events')
        try {
          await this.copy(
            'exchange_evidence',
            DIRECT_EVENT_COLUMNS,
            (function* () {
              for (const event of direct) {
                const id = createdIds.get(batch.keys[event.transaction])
                yield `${event.core}\t${event.retainGiven ?? event.retainDefault}\t${now}\t${id}\n`
              }
            })()
          )
          await client.query('RELEASE SAVEPOINT direct_events')
          tick('direct')
          eventsCreated += direct.length
        } catch (error) {
          if ((error as { code?: string }).code !== '23505') throw error
          await client.query('ROLLBACK TO SAVEPOINT direct_events')
          staged = batch.events
          tick('directFail')
        }
      }
      if (staged.length > 0) {
        await this.copy(
          STAGE_EVENTS,
          STAGE_EVENT_COLUMNS,
          (function* () {
            for (const event of staged) yield stageEventRow(batch, event)
          })()
        )
        tick('copyEv')
        const inserted = await client.query(MERGE_EVENTS, [months])
        tick('mergeEv')
        eventsCreated += inserted.rowCount ?? 0
      }
      // Only events not inserted can belong to another transaction.
      const foreign =
        eventsCreated < batch.eventCount ? await client.query(FOREIGN_EVENT_IDS) : { rows: [] }
      if (foreign.rows.length > 0) {
        const { line, position, id } = foreign.rows[0]
        throw new ImportLineError(
          line,
          `events[${position}].id ${id} is already stored for another transaction`
        )
      }
      tick('foreign')
      await client.query('COMMIT')
      tick('commit')
      const transactions = new Set(batch.keys).size
      return {
        transactionsCreated: created,
        transactionsUpdated: changed - created,
        transactionsUnchanged: transactions - changed,
        eventsCreated,
        eventsUnchanged: batch.eventCount - eventsCreated,
        transactions: batch.lines,
        events: batch.eventCount,
      }
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw error
    }
  }

  /**
   * A batch of transactions none of which is stored yet (a first import) goes straight
   * into `transactions` with ids taken from its sequence: written once, and the
   * statement-level triggers keep transaction_counts and transaction_totals exact as
   * for any insert. A key already stored, or twice in the batch, is a unique violation:
   * the savepoint undoes the COPY (and what its triggers did), null is returned and
   * the batch takes the staging upsert, which applies the re-import rules; the next
   * batches do too until one turns out all new again.
   */
  private async insertNew(
    batch: Batch,
    createdIds: Map<string, number | string>
  ): Promise<{ now: string } | null> {
    const { client } = this
    const reserved = await client.query(
      `SELECT now()::text AS now, array(SELECT nextval(pg_get_serial_sequence('transactions', 'id'))
         FROM generate_series(1, $1::int)) AS ids`,
      [batch.lines]
    )
    const { now, ids } = reserved.rows[0] as { now: string; ids: Array<string | number> }
    await client.query('SAVEPOINT direct_transactions')
    try {
      await this.copy(
        'transactions',
        DIRECT_TRANSACTION_COLUMNS,
        (function* () {
          for (const [index, row] of batch.transactions.entries()) {
            // A staging row starts with its line number; the id takes its place.
            yield `${ids[index]}${row.slice(row.indexOf('\t'))}`
          }
        })()
      )
      await client.query('RELEASE SAVEPOINT direct_transactions')
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') throw error
      await client.query('ROLLBACK TO SAVEPOINT direct_transactions')
      this.directTransactions = false
      return null
    }
    for (const [index, key] of batch.keys.entries()) createdIds.set(key, ids[index])
    return { now }
  }

  /**
   * Writes a batch; when a line of it turns out bad only in the database (an event id
   * of another transaction), the lines before that one are written and the error
   * is raised, so an import always keeps exactly the lines before the bad one.
   */
  async writeUpTo(batch: Batch, months: number): Promise<{ counts: Counts; error?: Error }> {
    try {
      return { counts: await this.write(batch, months) }
    } catch (error) {
      if (!(error instanceof ImportLineError) || batch.lines === 0) throw error
      const kept = keepBefore(batch, error.line)
      return { counts: await this.write(kept, months), error }
    }
  }
}

/** The part of a batch before `line`. */
function keepBefore(batch: Batch, line: number): Batch {
  const kept = newBatch()
  kept.firstLine = batch.firstLine
  const count = batch.transactions.findIndex(
    (row) => Number(row.slice(0, row.indexOf('\t'))) >= line
  )
  const lines = count === -1 ? batch.lines : count
  kept.lines = lines
  kept.transactions = batch.transactions.slice(0, lines)
  kept.keys = batch.keys.slice(0, lines)
  kept.references = batch.references.slice(0, lines)
  kept.events = batch.events.filter((event) => event.line < line)
  kept.eventCount = kept.events.length
  return kept
}

function stage(batch: Batch, prepared: PreparedLine) {
  if (batch.lines === 0) batch.firstLine = prepared.line
  const index = batch.lines++
  batch.transactions.push(prepared.transaction)
  batch.keys.push(prepared.key)
  batch.references.push(prepared.reference)
  batch.bytes += prepared.bytes
  for (const event of prepared.events) {
    const staged = event as StagedEvent
    staged.transaction = index
    batch.events.push(staged)
    batch.eventCount++
  }
}

/** Merchants named by the file, looked up once each. */
class MerchantCheck {
  private known = new Map<number, boolean>()

  async exists(id: number) {
    let found = this.known.get(id)
    if (found === undefined) {
      found = (await db.from('merchants').where('id', id).select('id').first()) !== null
      this.known.set(id, found)
    }
    return found
  }
}

async function loadCurrencies() {
  const rows = await db.from('currencies').select('code')
  return new Set(rows.map((row: { code: string }) => row.code))
}

export async function importJsonLines(
  input: Readable,
  options: ImportOptions = {}
): Promise<ImportResult> {
  const months = retentionMonths()
  const batchLines = options.batchLines ?? BATCH_LINES
  const currencies = await loadCurrencies()
  const merchants = new MerchantCheck()
  const result: ImportResult = {
    transactions: 0,
    events: 0,
    transactions_created: 0,
    transactions_updated: 0,
    transactions_unchanged: 0,
    events_created: 0,
    events_unchanged: 0,
    lines: 0,
    bytes: 0,
  }
  const add = (counts: Counts) => {
    result.transactions += counts.transactions
    result.events += counts.events
    result.transactions_created += counts.transactionsCreated
    result.transactions_updated += counts.transactionsUpdated
    result.transactions_unchanged += counts.transactionsUnchanged
    result.events_created += counts.eventsCreated
    result.events_unchanged += counts.eventsUnchanged
  }

  const session = await StagingSession.open(options.timings)
  // One batch is merged while the next is read and sealed (two cores at work).
  let writing: Promise<{ counts: Counts; error?: Error }> | null = null
  let writeFailed = false
  const settle = async () => {
    if (!writing) return
    const current = writing
    writing = null
    const { counts, error } = await current
    add(counts)
    if (error) {
      // Found bad by the database: what follows it (the batch being read) is not written.
      writeFailed = true
      throw error
    }
  }

  let batch = newBatch()
  let lastProgressAt = 0
  try {
    let badLine: ImportLineError | null = null
    try {
      for await (const prepared of preparedLines(
        input,
        { currencies, months },
        options.preparation
      )) {
        for (const line of prepared.lines) {
          if (!(await merchants.exists(line.merchantId))) {
            result.lines = line.line
            throw new ImportLineError(line.line, `merchant ${line.merchantId} does not exist`)
          }
          stage(batch, line)
          if (batch.lines >= batchLines || batch.bytes >= BATCH_BYTES) {
            await settle()
            writing = session.writeUpTo(batch, months)
            writing.catch(() => {}) // observed by settle()
            batch = newBatch()
          }
        }
        result.lines = prepared.bad?.line ?? prepared.lastLine
        result.bytes = prepared.bytesRead
        if (options.onProgress && result.lines - lastProgressAt >= PROGRESS_EVERY_LINES) {
          lastProgressAt = result.lines
          options.onProgress({ lines: result.lines, bytes: result.bytes })
        }
      }
    } catch (error) {
      // A line that breaks the format: the lines before it are still written below.
      if (!(error instanceof ImportLineError) || writeFailed) throw error
      badLine = error
    }
    await settle()
    if (batch.lines > 0) {
      writing = session.writeUpTo(batch, months)
      await settle()
    }
    if (badLine) throw badLine
  } catch (error) {
    if (!(error instanceof ImportLineError)) throw error
    // The batches before the bad line were written: the run is audited as what it did.
    // The line's error is the one to report, even if the record cannot be written.
    await audit(undefined, SYSTEM_ACTOR, {
      action: 'collections.import',
      outcome: 'failure',
      reason: 'bad_line',
      metadata: { ...importedCounts(result), bad_line: error.line },
    }).catch(() => {})
    throw new ImportLineError(
      error.line,
      `${error.reason} (lines before ${error.line} were imported; nothing from line ${error.line} on)`
    )
  } finally {
    // A batch still being merged (the import stopped on another failure) ends first.
    if (writing) await (writing as Promise<unknown>).catch(() => {})
    await session.close()
  }
  options.onProgress?.({ lines: result.lines, bytes: result.bytes })

  await audit(undefined, SYSTEM_ACTOR, {
    action: 'collections.import',
    outcome: 'success',
    metadata: importedCounts(result),
  })
  return result
}

/** What an import run wrote, as its audit record says it. */
function importedCounts(result: ImportResult) {
  return {
    transactions: result.transactions,
    events: result.events,
    transactions_created: result.transactions_created,
    transactions_updated: result.transactions_updated,
    events_created: result.events_created,
  }
}
