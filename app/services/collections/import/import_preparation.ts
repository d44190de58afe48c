/*
| One import line made ready to write: checked (import_line.ts), its evidence sealed
| and projected (evidence_cipher.ts), and turned into COPY text in the column orders of
| import_columns.ts. Pure, without the application container, so that it runs on the
| import's preparation thread (prepared_lines.ts) as well as on the application's.
*/
import { parseImportLine } from '#services/collections/import/import_line'
import { retainUntilDefault } from '#services/collections/import/import_retention'
import { sealEvidenceWith, type Seal } from '#services/collections/history/evidence_cipher'

/** COPY text format: \N for null; backslash, tab, newline and carriage return escaped. */
export function copyValue(value: string | number | boolean | null): string {
  if (value === null) return '\\N'
  if (typeof value !== 'string') return String(value)
  return /[\\\t\n\r]/.test(value)
    ? value
        .replaceAll('\\', '\\\\')
        .replaceAll('\t', '\\t')
        .replaceAll('\n', '\\n')
        .replaceAll('\r', '\\r')
    : value
}

export const copyRow = (values: Array<string | number | boolean | null>) =>
  values.map(copyValue).join('\t') + '\n'

// The rows, in the column orders of import_columns.ts.

/** A staging transaction row as a row of `transactions`: the id takes the line's place. */
export const directTransactionRow = (stagingRow: string, id: number | string) =>
  `${id}${stagingRow.slice(stagingRow.indexOf('\t'))}`

/** An event of a transaction just created, as a row of `exchange_evidence`. */
export const directEventRow = (
  event: PreparedEvent,
  createdAt: string,
  transactionId: number | string
) => `${event.core}\t${event.retainGiven ?? event.retainDefault}\t${createdAt}\t${transactionId}\n`

/** An event as a staging row, under its transaction's reference (COPY text). */
export const stagedEventRow = (event: PreparedEvent, reference: string) =>
  `${event.line}\t${event.position}\t${reference}\t${event.retainGiven ?? '\\N'}\t${event.core}\n`

/** What a line's preparation needs: the known currencies, retention and the sealing. */
export interface PreparationContext {
  currencies: ReadonlySet<string>
  months: number
  seal: Seal
}

/** One event of a line, ready for either write path (staging or direct). */
export interface PreparedEvent {
  line: number
  position: number
  /** COPY text of the import's event core columns, without a newline. */
  core: string
  /** retain_until as given, or null for the default. */
  retainGiven: string | null
  /** The default computed here, or null when PostgreSQL must compute it (staging). */
  retainDefault: string | null
}

export interface PreparedLine {
  line: number
  merchantId: number
  /** COPY text of the import's staging transaction columns, with its newline. */
  transaction: string
  /** Its transaction's key: merchant, environment, reference (tab-separated). */
  key: string
  /** merchant_transaction_id in COPY text. */
  reference: string
  events: PreparedEvent[]
  /** Roughly what the line adds to a batch's memory. */
  bytes: number
}

/** Checks and seals one line; an ImportLineError names it when it is bad. */
export function prepareLine(line: number, text: string, context: PreparationContext): PreparedLine {
  const t = parseImportLine(line, text, context.currencies)
  const transaction = copyRow([
    line,
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
  ])
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
    bytes += core.length + 64
    return {
      line,
      position,
      core,
      retainGiven,
      retainDefault:
        retainGiven === null ? retainUntilDefault(event.capturedAt, context.months) : null,
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
