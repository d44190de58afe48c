/*
| The import's writes of a batch (import_batch_writer.ts). Its direct paths: rows that
| cannot be stored yet go straight into the final tables, written once, each COPY
| under a savepoint so that a unique violation undoes it and sends the rows through
| staging instead. Its staged events: merged by MERGE_EVENTS (staging_sql.ts).
*/
import {
  copyRows,
  unlessStored,
  type CopyPiece,
  type CopyRow,
  type PgClient,
} from '#services/collections/import/copy_stream'
import {
  DIRECT_BODY_COLUMNS,
  DIRECT_EVENT_COLUMNS,
  DIRECT_TRANSACTION_COLUMNS,
  EVENT_BODY_COLUMNS,
  EVENT_CORE_COLUMNS,
  STAGE_EVENT_COLUMNS,
} from '#services/collections/import/import_columns'
import {
  directTransactionRow,
  type PreparedEvent,
} from '#services/collections/import/import_preparation'
import { DATE_ARRAY, bodyMonthIn } from '#services/collections/history/evidence_storage'
import { BODIES, LOOSE_MONTH, RECORDS } from '#services/collections/history/evidence_layout'
import { MERGE_EVENTS, STAGE_EVENTS } from '#services/collections/import/staging_sql'
import {
  stageEventRow,
  type Batch,
  type StagedEvent,
} from '#services/collections/import/import_batch'

/**
 * Where the body's fields lie in an event's core (EVENT_CORE_COLUMNS): after the tab
 * that ends the field before them and up to the tab after them. COPY text escapes
 * tabs inside values, so every raw tab separates two fields.
 */
const BODY_FIRST = EVENT_CORE_COLUMNS.indexOf(EVENT_BODY_COLUMNS[0])
const BODY_END = BODY_FIRST + EVENT_BODY_COLUMNS.length

/** The core cut at its tabs: id, the fields before the body, the body, the rest. */
function coreParts(core: CopyPiece) {
  const tabs: number[] = []
  const tab = typeof core === 'string' ? '\t' : 9
  for (
    let at = core.indexOf(tab as never);
    tabs.length < BODY_END;
    at = core.indexOf(tab as never, at + 1)
  ) {
    tabs.push(at)
  }
  const slice = (from: number, to?: number) =>
    typeof core === 'string' ? core.slice(from, to) : core.subarray(from, to)
  return {
    id: slice(0, tabs[0]),
    before: slice(0, tabs[BODY_FIRST - 1]),
    body: slice(tabs[BODY_FIRST - 1] + 1, tabs[BODY_END - 1]),
    after: slice(tabs[BODY_END - 1]),
  }
}

/** An event of a transaction just created, as a row of `evidence_records` (DIRECT_EVENT_COLUMNS). */
export const directEventRow = (
  event: PreparedEvent<CopyPiece>,
  createdAt: string,
  transactionId: number | string,
  bodyMonth: string
): CopyRow => {
  const { before, after } = coreParts(event.core)
  return [
    before,
    after,
    `\t${event.retainGiven ?? event.retainDefault}\t${createdAt}\t${transactionId}\t${bodyMonth}\n`,
  ]
}

/** Its body, as a row of `evidence_bodies` (DIRECT_BODY_COLUMNS) under `bodyMonth`. */
export const directBodyRow = (event: PreparedEvent<CopyPiece>, bodyMonth: string): CopyRow => {
  const { id, body } = coreParts(event.core)
  return [id, `\t${bodyMonth}\t`, body, '\n']
}

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
 * into evidence_records (under their retention month) and their bodies into
 * evidence_bodies (under the month the batch may write, else loose); false when one of them is already stored or twice in the batch
 * (nothing is written).
 */
export function copyCreatedEvents(
  client: PgClient,
  batch: Batch,
  events: StagedEvent[],
  into: {
    createdAt: string
    createdIds: Map<string, number | string>
    /** The months the batch locked and may write bodies into. */
    writable: Set<string>
  }
): Promise<boolean> {
  const { createdAt, createdIds, writable } = into
  const bodyMonth = (event: StagedEvent) => bodyMonthIn(writable, event.retainMonth)
  return unlessStored(client, 'direct_events', async () => {
    await copyRows(
      client,
      RECORDS,
      DIRECT_EVENT_COLUMNS,
      (function* () {
        for (const event of events) {
          const transactionId = createdIds.get(batch.keys[event.transaction])!
          yield directEventRow(event, createdAt, transactionId, event.retainMonth ?? LOOSE_MONTH)
        }
      })()
    )
    await copyRows(
      client,
      BODIES,
      DIRECT_BODY_COLUMNS,
      (function* () {
        for (const event of events) yield directBodyRow(event, bodyMonth(event))
      })()
    )
  })
}

/** Stages `events` and merges them (MERGE_EVENTS); returns how many were inserted. */
export async function mergeStagedEvents(
  client: PgClient,
  batch: Batch,
  events: StagedEvent[],
  retentionMonths: number,
  writable: Set<string>
): Promise<number> {
  await copyRows(
    client,
    STAGE_EVENTS,
    STAGE_EVENT_COLUMNS,
    (function* () {
      for (const event of events) yield stageEventRow(batch, event)
    })()
  )
  const merged = await client.query(MERGE_EVENTS, [retentionMonths, DATE_ARRAY([...writable])])
  return merged.rows[0].inserted as number
}
