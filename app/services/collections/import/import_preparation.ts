/*
| One import line made ready to write: checked (import_line.ts), its evidence sealed
| and projected (evidence_cipher.ts), and turned into COPY text in the column orders of
| import_columns.ts. Pure, without the application container, so that it runs on the
| import's preparation thread (prepared_lines.ts) as well as on the application's.
|
| The COPY text crosses to the import's thread as UTF-8 bytes (withBytes): one buffer
| per reply, transferred, not copied, and written to the socket as it is.
*/
import type { CopyPiece, CopyRow } from '#services/collections/import/copy_stream'
import { parseImportLine } from '#services/collections/import/import_line'
import { retainUntilDefault } from '#services/collections/import/import_retention'
import { monthOfInstant, monthOfUtcLiteral } from '#services/collections/history/evidence_layout'
import { sealEvidenceWith, type Seal } from '#services/collections/history/evidence_cipher'

/**
 * COPY text format: \N for null; backslash, tab, newline and carriage return escaped;
 * bytes (a bytea) as `\x` and their hex digits, its backslash escaped.
 */
export function copyValue(value: string | number | boolean | Buffer | null): string {
  if (value === null) return '\\N'
  if (Buffer.isBuffer(value)) return `\\\\x${value.toString('hex')}`
  if (typeof value !== 'string') return String(value)
  return /[\\\t\n\r]/.test(value)
    ? value
        .replaceAll('\\', '\\\\')
        .replaceAll('\t', '\\t')
        .replaceAll('\n', '\\n')
        .replaceAll('\r', '\\r')
    : value
}

export const copyRow = (values: Array<string | number | boolean | Buffer | null>) =>
  values.map(copyValue).join('\t') + '\n'

// The rows, in the column orders of import_columns.ts.

/** A transaction's staging row: its line, then the rest (PreparedLine.transaction). */
export const stagedTransactionRow = (line: number, rest: CopyPiece): CopyRow => [String(line), rest]

/** A transaction as a row of `transactions`: the id takes the line's place. */
export const directTransactionRow = (rest: CopyPiece, id: number | string): CopyRow => [
  String(id),
  rest,
]

/** An event as a staging row, under its transaction's reference. */
export const stagedEventRow = (event: PreparedEvent<CopyPiece>, reference: string): CopyRow => [
  `${event.line}\t${event.position}\t${reference}\t${event.retainGiven ?? '\\N'}\t`,
  event.core,
  '\n',
]

/** What a line's preparation needs: the known currencies, retention and the sealing. */
export interface PreparationContext {
  currencies: ReadonlySet<string>
  months: number
  seal: Seal
}

/**
 * One event of a line, ready for either write path (staging or direct); its COPY
 * text a string as prepared, UTF-8 bytes once it crosses threads.
 */
export interface PreparedEvent<Text extends CopyPiece = string> {
  line: number
  position: number
  /** COPY text of the import's event core columns, without a newline. */
  core: Text
  /** The UTC month of its retain_until ('YYYY-MM-01'); null when only PostgreSQL knows it. */
  retainMonth: string | null
  /** retain_until as given, or null for the default. */
  retainGiven: string | null
  /** The default computed here, or null when PostgreSQL must compute it (staging). */
  retainDefault: string | null
}

export interface PreparedLine<Text extends CopyPiece = string> {
  line: number
  merchantId: number
  /**
   * COPY text of the import's staging transaction columns after the line (from the
   * tab before merchant_id), with its newline: the line or the id goes first.
   */
  transaction: Text
  /** Its transaction's key: merchant, environment, reference (tab-separated). */
  key: string
  /** merchant_transaction_id in COPY text. */
  reference: string
  events: Array<PreparedEvent<Text>>
  /** Roughly what the line adds to a batch's memory. */
  bytes: number
}

/**
 * `lines` with their COPY text as UTF-8 bytes, views of one buffer written once (none
 * when there are no lines), which a reply transfers to the import's thread instead of
 * copying its strings there.
 */
export function withBytes(lines: PreparedLine[]): {
  lines: Array<PreparedLine<Uint8Array>>
  buffer: ArrayBuffer | null
} {
  if (lines.length === 0) return { lines: [], buffer: null }
  let size = 0
  for (const line of lines) {
    size += Buffer.byteLength(line.transaction)
    for (const event of line.events) size += Buffer.byteLength(event.core)
  }
  const buffer = new ArrayBuffer(size)
  const bytes = Buffer.from(buffer)
  let used = 0
  const view = (text: string) => {
    const start = used
    used += bytes.write(text, used)
    return new Uint8Array(buffer, start, used - start)
  }
  return {
    lines: lines.map((line) => ({
      ...line,
      transaction: view(line.transaction),
      events: line.events.map((event) => ({ ...event, core: view(event.core) })),
    })),
    buffer,
  }
}

/** Checks and seals one line; an ImportLineError names it when it is bad. */
export function prepareLine(line: number, text: string, context: PreparationContext): PreparedLine {
  const t = parseImportLine(line, text, context.currencies)
  const transaction = `\t${copyRow([
    t.merchantId,
    t.environment,
    t.merchantTransactionId,
    t.amount,
    t.currency,
    t.paymentStatus,
    t.legacyStatus,
    t.paymentBrand,
    t.archived,
    t.credited,
    t.createdAt?.sql ?? null,
    t.updatedAt?.sql ?? null,
  ])}`
  const reference = copyValue(t.merchantTransactionId)
  let bytes = transaction.length
  const events = t.events.map((event, position): PreparedEvent => {
    const sealed = sealEvidenceWith(
      context.seal,
      event.id,
      { ...event, purgedAt: event.purgedAt?.sql ?? null },
      event.snapshot
    )
    const core = [
      event.id,
      t.merchantId,
      t.environment,
      event.kind,
      event.source,
      event.direction,
      event.capturedAt.sql,
      event.captureFormat,
      event.schemaVersion,
      sealed.snapshotCiphertext,
      sealed.snapshotSize,
      sealed.projectionCiphertext,
      sealed.projectionVersion,
      event.contentType,
      event.bodyCaptureStatus,
      event.eventId,
      event.attemptNumber,
      event.httpStatus,
      event.deliveryState,
      event.durationMs,
      event.isRepeatedRequest,
      event.legalHold,
      event.purgedAt?.sql ?? null,
    ]
      .map(copyValue)
      .join('\t')
    const retainGiven = event.retainUntil ? copyValue(event.retainUntil.sql) : null
    const retainDefault =
      retainGiven === null ? retainUntilDefault(event.capturedAt, context.months) : null
    bytes += core.length + 64
    return {
      line,
      position,
      core,
      retainGiven,
      retainDefault,
      retainMonth: event.retainUntil
        ? monthOfInstant(event.retainUntil.epochSeconds * 1000)
        : retainDefault && monthOfUtcLiteral(retainDefault),
    }
  })
  return {
    line,
    merchantId: t.merchantId,
    transaction,
    key: `${t.merchantId}\t${t.environment}\t${reference}`,
    reference,
    events,
    bytes,
  }
}
