/*
| The import's direct paths (import_batch_writer.ts): rows that cannot be stored yet go
| straight into the final tables, written once, each COPY under a savepoint so that a
| unique violation undoes it and sends the rows through staging instead.
*/
import { copyRows, unlessStored, type PgClient } from '#services/collections/import/copy_stream'
import {
  DIRECT_EVENT_COLUMNS,
  DIRECT_TRANSACTION_COLUMNS,
} from '#services/collections/import/import_columns'
import {
  directEventRow,
  directTransactionRow,
} from '#services/collections/import/import_preparation'
import type { Batch, StagedEvent } from '#services/collections/import/import_batch'

/**
 * A batch of transactions none of which is stored yet (a first import) goes straight
 * into `transactions` with ids taken from its sequence: written once, and the
 * statement-level triggers keep transaction_counts and transaction_totals exact as
 * for any insert. A key already stored, or twice in the batch, is a unique violation:
 * the savepoint undoes the COPY (and what its triggers did), null is returned and
 * the batch takes the staging upsert, which applies the re-import rules; the next
 * batches do too until one turns out all new again. Else the ids given to its lines,
 * in order, and the transaction's now().
 */
export async function insertNewTransactions(
  client: PgClient,
  batch: Batch
): Promise<{ now: string; ids: Array<string | number> } | null> {
  const reserved = await client.query(
    `SELECT now()::text AS now, array(SELECT nextval(pg_get_serial_sequence('transactions', 'id'))
       FROM generate_series(1, $1::int)) AS ids`,
    [batch.lines]
  )
  const { now, ids } = reserved.rows[0] as { now: string; ids: Array<string | number> }
  const written = await unlessStored(client, 'direct_transactions', () =>
    copyRows(
      client,
      'transactions',
      DIRECT_TRANSACTION_COLUMNS,
      (function* () {
        for (const [index, row] of batch.transactions.entries()) {
          yield directTransactionRow(row, ids[index])
        }
      })()
    )
  )
  return written ? { now, ids } : null
}

/**
 * The events of transactions the batch created (`createdIds`, by key), COPYed straight
 * into exchange_evidence; false when one of them is already stored or twice in the
 * batch (nothing is written).
 */
export function copyCreatedEvents(
  client: PgClient,
  batch: Batch,
  events: StagedEvent[],
  createdAt: string,
  createdIds: Map<string, number | string>
): Promise<boolean> {
  return unlessStored(client, 'direct_events', () =>
    copyRows(
      client,
      'exchange_evidence',
      DIRECT_EVENT_COLUMNS,
      (function* () {
        for (const event of events) {
          yield directEventRow(event, createdAt, createdIds.get(batch.keys[event.transaction])!)
        }
      })()
    )
  )
}
