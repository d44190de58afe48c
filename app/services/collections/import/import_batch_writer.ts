/*
| The import's writes (import_transactions.ts): one database session that writes each
| batch (import_batch.ts) in one transaction, through PostgreSQL COPY (pg-copy-streams:
| one round trip per batch instead of one per row).
|
| - New rows go straight into the final tables: a batch whose transactions are all new
|   is COPYed into `transactions` with ids from its sequence, and the events of
|   transactions it created into `exchange_evidence`, each under a savepoint.
| - Whatever may already be stored goes into two session temporary staging tables and
|   is merged with plain SQL, which applies the re-import rules; a unique violation on
|   a direct path sends the batch there too.
| - The statement-level triggers keep transaction_counts and transaction_totals exact
|   for COPY as for INSERT, and a rolled-back savepoint undoes what they did.
*/
import { pipeline } from 'node:stream/promises'
import { from as copyFrom } from 'pg-copy-streams'
import db from '@adonisjs/lucid/services/db'
import { ImportLineError } from '#services/collections/import/import_line'
import {
  copyValue,
  directEventRow,
  directTransactionRow,
  DIRECT_EVENT_COLUMNS,
  DIRECT_TRANSACTION_COLUMNS,
  STAGE_EVENT_COLUMNS,
  TRANSACTION_COLUMNS,
} from '#services/collections/import/import_preparation'
import {
  keepBefore,
  stageEventRow,
  type Batch,
  type StagedEvent,
} from '#services/collections/import/import_batch'

const STAGE_TRANSACTIONS = 'collections_import_transactions'
const STAGE_EVENTS = 'collections_import_events'

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

export interface Counts {
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

export class BatchWriter {
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
    const session = new BatchWriter(knex, client, timings)
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
      const createdAt = now
      if (direct.length > 0 && createdAt) {
        await client.query('SAVEPOINT direct_events')
        try {
          await this.copy(
            'exchange_evidence',
            DIRECT_EVENT_COLUMNS,
            (function* () {
              for (const event of direct) {
                yield directEventRow(
                  event,
                  createdAt,
                  createdIds.get(batch.keys[event.transaction])!
                )
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
            yield directTransactionRow(row, ids[index])
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
