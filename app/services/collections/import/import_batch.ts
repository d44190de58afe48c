/*
| A batch of the import: the prepared lines (import_preparation.ts) written together in
| one transaction (import_batch_writer.ts), bounded in lines and bytes by the import.
*/
import {
  stagedEventRow,
  stagedTransactionRow,
  type PreparedEvent,
  type PreparedLine,
} from '#services/collections/import/import_preparation'

/** One event of a batch: its line's prepared event and its transaction in the batch. */
export interface StagedEvent extends PreparedEvent<Uint8Array> {
  /** Index of its line's transaction in the batch. */
  transaction: number
}

export interface Batch {
  firstLine: number
  lines: number
  bytes: number
  /** The line of each transaction. */
  lineNumbers: number[]
  /** Each line's transaction row after its line (PreparedLine.transaction). */
  transactions: Uint8Array[]
  /** Key of each line's transaction: merchant, environment, reference (tab-separated). */
  keys: string[]
  /** merchant_transaction_id of each line, in COPY text. */
  references: string[]
  events: StagedEvent[]
  eventCount: number
}

export const newBatch = (): Batch => ({
  firstLine: 0,
  lines: 0,
  bytes: 0,
  lineNumbers: [],
  transactions: [],
  keys: [],
  references: [],
  events: [],
  eventCount: 0,
})

/** The staging row of a batch's transaction. */
export const stageTransactionRow = (batch: Batch, index: number) =>
  stagedTransactionRow(batch.lineNumbers[index], batch.transactions[index])

/** The staging row of a batch's event. */
export const stageEventRow = (batch: Batch, event: StagedEvent) =>
  stagedEventRow(event, batch.references[event.transaction])

/** What writing one batch changed (import_batch_writer.ts). */
export interface Counts {
  transactionsCreated: number
  transactionsUpdated: number
  transactionsUnchanged: number
  eventsCreated: number
  eventsUnchanged: number
  transactions: number
  events: number
}

/** The part of a batch before `line`. */
export function keepBefore(batch: Batch, line: number): Batch {
  const kept = newBatch()
  kept.firstLine = batch.firstLine
  const count = batch.lineNumbers.findIndex((number) => number >= line)
  const lines = count === -1 ? batch.lines : count
  kept.lines = lines
  kept.lineNumbers = batch.lineNumbers.slice(0, lines)
  kept.transactions = batch.transactions.slice(0, lines)
  kept.keys = batch.keys.slice(0, lines)
  kept.references = batch.references.slice(0, lines)
  kept.events = batch.events.filter((event) => event.line < line)
  kept.eventCount = kept.events.length
  return kept
}

/** Adds a prepared line to the batch. */
export function stage(batch: Batch, prepared: PreparedLine<Uint8Array>) {
  if (batch.lines === 0) batch.firstLine = prepared.line
  const index = batch.lines++
  batch.lineNumbers.push(prepared.line)
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
