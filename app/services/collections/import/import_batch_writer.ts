/*
| The import's writes (import_transactions.ts): one database session that writes each
| batch (import_batch.ts) in one transaction, through PostgreSQL COPY (copy_stream.ts:
| one round trip per batch instead of one per row).
|
| - New rows go straight into the final tables: a batch whose transactions are all new
|   is COPYed into `transactions` with ids from its sequence, and the events of
|   transactions it created into `evidence_records` and `evidence_bodies`, each under
|   a savepoint (direct_writes.ts). Bodies go under the months the batch locked
|   (evidence_storage.ts), their partitions created before its transaction.
| - Whatever may already be stored goes into two session temporary staging tables and
|   is merged with plain SQL, which applies the re-import rules (staging_sql.ts); a
|   unique violation on a direct path sends the batch there too.
| - The statement-level triggers keep transaction_counts and transaction_totals exact
|   for COPY as for INSERT, and a rolled-back savepoint undoes what they did.
*/
import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import type { PoolClient } from 'pg'
import { acquirePgConnection, releasePgConnection } from '#platform/pg_connection'
import { ImportLineError } from '#services/collections/import/import_line'
import { copyValue } from '#services/collections/import/import_preparation'
import { TRANSACTION_COLUMNS } from '#services/collections/import/import_columns'
import {
  CREATE_STAGING,
  FOREIGN_EVENT_IDS,
  MERGE_TRANSACTIONS,
  STAGE_EVENTS,
  STAGE_TRANSACTIONS,
} from '#services/collections/import/staging_sql'
import { copyRows } from '#services/collections/import/copy_stream'
import {
  copyCreatedEvents,
  insertNewTransactions,
  mergeStagedEvents,
} from '#services/collections/import/direct_writes'
import {
  keepBefore,
  stageTransactionRow,
  type Batch,
  type Counts,
  type StagedEvent,
} from '#services/collections/import/import_batch'
import { stepTimer } from '#services/collections/import/step_timer'
import {
  ensureBodyPartitions,
  lockMonthsForWriting,
} from '#services/collections/history/evidence_storage'

export class BatchWriter {
  private constructor(
    private connection: QueryClientContract,
    readonly client: PoolClient,
    private timings?: Record<string, number>
  ) {}

  /** Whether the next batch first tries to COPY its transactions straight in. */
  private directTransactions = true

  static async open(timings?: Record<string, number>) {
    const connection = db.connection()
    const client = await acquirePgConnection(connection)
    const session = new BatchWriter(connection, client, timings)
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
      await releasePgConnection(this.client, this.connection)
    }
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
  async write(batch: Batch, retentionMonths: number): Promise<Counts> {
    const { client } = this
    const tick = stepTimer(this.timings)
    // The months its bodies go into: their partitions first, outside the transaction.
    const months = new Set<string>()
    for (const event of batch.events) if (event.retainMonth) months.add(event.retainMonth)
    await ensureBodyPartitions(months)
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
        await copyRows(
          client,
          STAGE_TRANSACTIONS,
          TRANSACTION_COLUMNS,
          (function* () {
            for (let index = 0; index < batch.lines; index++) {
              yield stageTransactionRow(batch, index)
            }
          })()
        )
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
      const writable = await lockMonthsForWriting(client, months)
      if (direct.length > 0 && createdAt) {
        const into = { createdAt, createdIds, writable }
        if (await copyCreatedEvents(client, batch, direct, into)) {
          tick('direct')
          eventsCreated += direct.length
        } else {
          staged = batch.events
          tick('directFail')
        }
      }
      if (staged.length > 0) {
        eventsCreated += await mergeStagedEvents(client, batch, staged, retentionMonths, writable)
        tick('mergeEv')
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

  /** A batch all new goes straight in (insertNewTransactions), until one is not. */
  private async insertNew(
    batch: Batch,
    createdIds: Map<string, number | string>
  ): Promise<{ now: string } | null> {
    const inserted = await insertNewTransactions(this.client, batch)
    if (!inserted) {
      this.directTransactions = false
      return null
    }
    for (const [index, key] of batch.keys.entries()) createdIds.set(key, inserted.ids[index])
    return { now: inserted.now }
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
