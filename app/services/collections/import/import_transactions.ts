/*
| The collections import (decisions.md §5; `node ace collections:import`, the demo
| seed and the benchmarks call it). JSON Lines in, one transaction per line with its
| exchange evidence.
|
| - Streams: lines are read, checked (import_line.ts) and sealed on a preparation
|   thread (prepared_lines.ts), a bounded number of input chunks ahead, gathered in batches
|   (import_batch.ts) bounded in lines and bytes, and each batch is written in one
|   transaction (import_batch_writer.ts) while the next is gathered.
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
| - An aborted `signal` (the command's SIGTERM or SIGINT) stops reading: the batch
|   being written commits (or rolls back) as a whole, the one being gathered is
|   dropped, the preparation thread is ended, and the run is audited as interrupted
|   with the counts of what was committed. The same file run again completes it.
| - retain_until defaults to captured_at + HISTORY_RETENTION_MONTHS (12).
*/
import type { Readable } from 'node:stream'
import settings from '#config/settings'
import { ImportLineError } from '#services/collections/import/import_line'
import { preparedLines } from '#services/collections/import/prepared_lines'
import { newBatch, stage, type Batch, type Counts } from '#services/collections/import/import_batch'
import { loadCurrencies, MerchantCheck } from '#services/collections/import/import_references'
import { BatchWriter } from '#services/collections/import/import_batch_writer'
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
  /** Aborted: stop reading and finish with the batches committed (the result says interrupted). */
  signal?: AbortSignal
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
  /** Lines handled: all of them, or, when interrupted, those up to the last committed. */
  lines: number
  bytes: number
  /** Stopped by the signal before the input's end. */
  interrupted: boolean
}

/** Bounds of one batch: whichever is reached first. */
const BATCH_LINES = 5_000
const BATCH_BYTES = 8 * 1024 * 1024
const PROGRESS_EVERY_LINES = 1_000

export class ImportError extends Error {}

export function retentionMonths(): number {
  const months = settings.historyRetentionMonths()
  if (!Number.isInteger(months) || months < 1 || months > 1200) {
    throw new ImportError(
      'HISTORY_RETENTION_MONTHS must be a whole number of months from 1 to 1200'
    )
  }
  return months
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
    interrupted: false,
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

  const session = await BatchWriter.open(options.timings)
  // One batch is merged while the next is read and sealed (two cores at work).
  let writing: Promise<{ counts: Counts; error?: Error }> | null = null
  let writingThrough = 0
  /** Every line up to this one is committed. */
  let committedThrough = 0
  let writeFailed = false
  const write = (batch: Batch) => {
    writing = session.writeUpTo(batch, months)
    writing.catch(() => {}) // observed by settle()
    writingThrough = batch.lineNumbers.at(-1) ?? committedThrough
  }
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
    committedThrough = writingThrough
  }

  let batch = newBatch()
  let lastProgressAt = 0
  try {
    let badLine: ImportLineError | null = null
    let inputEnded = false
    try {
      reading: for await (const prepared of preparedLines(
        input,
        { currencies, months },
        options.preparation,
        options.signal
      )) {
        for (const line of prepared.lines) {
          if (!(await merchants.exists(line.merchantId))) {
            result.lines = line.line
            throw new ImportLineError(line.line, `merchant ${line.merchantId} does not exist`)
          }
          stage(batch, line)
          if (batch.lines >= batchLines || batch.bytes >= BATCH_BYTES) {
            await settle()
            // Stopped while the previous batch was written: this one is dropped.
            if (options.signal?.aborted) break reading
            write(batch)
            batch = newBatch()
          }
        }
        result.lines = prepared.bad?.line ?? prepared.lastLine
        result.bytes = prepared.bytesRead
        if (options.onProgress && result.lines - lastProgressAt >= PROGRESS_EVERY_LINES) {
          lastProgressAt = result.lines
          options.onProgress({ lines: result.lines, bytes: result.bytes })
        }
        if (prepared.done) inputEnded = true
        else if (options.signal?.aborted) break
      }
    } catch (error) {
      // A line that breaks the format: the lines before it are still written below.
      if (!(error instanceof ImportLineError) || writeFailed) throw error
      badLine = error
    }
    // Stopped by the signal (here, or while waiting for lines): the batch being
    // gathered is dropped, the one being written ends as a whole.
    result.interrupted = !inputEnded && !badLine && options.signal?.aborted === true
    // A read still pending (a pipe that sends nothing more) would keep it open.
    if (result.interrupted) input.destroy()
    await settle()
    if (batch.lines > 0 && !result.interrupted) {
      write(batch)
      await settle()
    }
    if (result.interrupted) result.lines = committedThrough
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
      error.line === 1
        ? `${error.reason} (nothing was imported)`
        : `${error.reason} (lines before ${error.line} were imported; nothing from line ${error.line} on)`
    )
  } finally {
    // A batch still being merged (the import stopped on another failure) ends first.
    if (writing) await (writing as Promise<unknown>).catch(() => {})
    await session.close()
  }
  options.onProgress?.({ lines: result.lines, bytes: result.bytes })

  await audit(
    undefined,
    SYSTEM_ACTOR,
    result.interrupted
      ? {
          action: 'collections.import',
          outcome: 'failure',
          reason: 'interrupted',
          metadata: { ...importedCounts(result), lines: result.lines, interrupted: true },
        }
      : { action: 'collections.import', outcome: 'success', metadata: importedCounts(result) }
  )
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
