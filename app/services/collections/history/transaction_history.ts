/*
| GET /portal/collections/transactions/{transaction}/history and .../history/{history}
| (portal-api.md › Collections, "History behavior"): the sanitized exchange history
| of one transaction of the actor's merchant and environment.
|
| - Only the permitted kinds (evidence_kinds.ts) are read; provider and internal
|   exchanges never leave the database.
| - Chronological: `captured_at`, then the ULID (byte order, COLLATE "C").
| - `meta.coverage` and the total come from one aggregate over the whole scoped
|   history, whatever the page.
| - Snapshots are never read here: each item is built from its row's columns
|   (evidence_rows.ts) and the projection stored when the evidence was written
|   (app/services/collections/history/project_evidence.ts, decisions.md §5), a
|   small bounded object, so a page costs the same whatever the
|   size of the captured bodies. A stored projection that cannot be opened marks its
|   own item unavailable (`snapshot_unreadable`).
| - Every read is audited on the primary, by one statement that also checks the
|   resource is in scope (no record for a 404) and runs beside the evidence reads;
|   the evidence is returned only once the record is written, and when the audit
|   write fails the read fails with 500 SERVER_ERROR and no evidence.
| - A GET never purges, extends retention or writes anything but the audit record.
*/
import type { UserActor } from '#auth/actor'
import type { CoverageState, Environment, HistoryEventType } from '#models/collections_vocabulary'
import ApiError from '#exceptions/api_error'
import { readConnection } from '#support/read_connection'
import db from '@adonisjs/lucid/services/db'
import { auditedReadStatement, type SqlFragment } from '#services/audit/audit_trail'
import { statementQuery } from '#platform/direct_query'
import type { EvidenceKind } from '#services/collections/history/evidence_kinds'
import { PERMITTED_KINDS_SQL } from '#services/collections/transactions/transaction_rows'
import {
  EVIDENCE_COLUMNS,
  itemOf,
  type EvidenceRow,
} from '#services/collections/history/evidence_rows'
import { coverageOf, eventTypeOf } from '#services/collections/history/coverage'
import type { HistoryItem } from '#shapes/collections'
import { EVIDENCE_FROM, RECORDS, UNPURGED } from '#services/collections/history/evidence_layout'

/** The scope of a transaction's evidence: transaction, merchant, environment, permitted kinds. */
const EVIDENCE_SCOPE = `e.transaction_id = ? AND e.merchant_id = ? AND e.environment = ?
  AND e.kind IN (${PERMITTED_KINDS_SQL})`

const CHRONOLOGICAL = `e.captured_at ASC, e.id COLLATE "C" ASC`

/**
 * Runs a read's audit statement (on the primary) beside its reads and answers with
 * the reads only once the record is written. A failing read answers as it would
 * alone (a database outage stays 503); a failing audit write, with no evidence, is
 * 500 (portal-api.md: audit failure returns 500). Whether the record was written
 * (its condition held) is returned with the reads.
 */
async function withAuditRecord<Reads extends unknown[]>(
  audit: SqlFragment,
  reads: [...{ [Index in keyof Reads]: Promise<Reads[Index]> }]
): Promise<{ audited: boolean; reads: Reads }> {
  const [written, ...settled] = await Promise.allSettled([
    statementQuery(db.connection(), audit, { prepare: true }),
    ...reads,
  ])
  for (const read of settled) if (read.status === 'rejected') throw read.reason
  if (written.status === 'rejected') {
    throw new ApiError('SERVER_ERROR', 'An unexpected error occurred.')
  }
  return {
    audited: written.value.length > 0,
    reads: settled.map((read) => (read as PromiseFulfilledResult<unknown>).value) as Reads,
  }
}

export interface HistoryPage {
  items: HistoryItem[]
  total: number
  coverage: Record<HistoryEventType, CoverageState>
}

/**
 * The three statements of a history page, run concurrently: the audit record,
 * written only when the transaction exists in scope (its existence check), the page,
 * and the per-kind counts (coverage and total).
 */
export function historyQueries(
  actor: UserActor,
  transactionId: string,
  input: { environment: Environment; page: number; perPage: number }
) {
  const scope = [transactionId, actor.merchantId, input.environment]
  const offset = (input.page - 1) * input.perPage
  return {
    audit: auditedReadStatement(
      actor,
      {
        action: 'collections.history.list',
        outcome: 'success',
        target: { type: 'transaction', id: transactionId },
        metadata: { environment: input.environment, page: input.page, per_page: input.perPage },
      },
      {
        sql: `EXISTS (SELECT 1 FROM transactions WHERE id = ? AND merchant_id = ? AND environment = ?)`,
        bindings: scope,
      },
      {
        items: {
          sql: `SELECT least(?::bigint, greatest(0, count(*) - ?::bigint))
                FROM ${RECORDS} e WHERE ${EVIDENCE_SCOPE}`,
          bindings: [input.perPage, offset, ...scope],
        },
      }
    ),
    page: {
      sql: `SELECT ${EVIDENCE_COLUMNS} FROM ${EVIDENCE_FROM} WHERE ${EVIDENCE_SCOPE}
       ORDER BY ${CHRONOLOGICAL} LIMIT ? OFFSET ?`,
      bindings: [...scope, input.perPage, offset],
    },
    coverage: {
      sql: `SELECT e.kind, count(*)::int AS total,
              count(*) FILTER (WHERE ${UNPURGED})::int AS unpurged
       FROM ${RECORDS} e WHERE ${EVIDENCE_SCOPE} GROUP BY e.kind`,
      bindings: scope,
    },
  }
}

export async function listTransactionHistory(
  actor: UserActor,
  transactionId: string,
  input: { environment: Environment; page: number; perPage: number }
): Promise<HistoryPage> {
  const connection = readConnection()
  const queries = historyQueries(actor, transactionId, input)
  const {
    audited,
    reads: [rows, counts],
  } = await withAuditRecord(queries.audit, [
    statementQuery<EvidenceRow>(connection, queries.page, { prepare: true }),
    statementQuery<{ kind: EvidenceKind; total: number; unpurged: number }>(
      connection,
      queries.coverage,
      { prepare: true }
    ),
  ])
  if (!audited) throw ApiError.notFound()

  const perType: Partial<Record<HistoryEventType, { total: number; unpurged: number }>> = {}
  let total = 0
  for (const row of counts) {
    const type = eventTypeOf(row.kind)
    if (!type) continue
    const sum = (perType[type] ??= { total: 0, unpurged: 0 })
    sum.total += row.total
    sum.unpurged += row.unpurged
    total += row.total
  }
  const items = rows.map(itemOf)
  return { items, total, coverage: coverageOf(perType) }
}

/** The item's row, found by its id within the transaction's scope (one row or none). */
const ITEM_IN_SCOPE = `FROM ${EVIDENCE_FROM}
     JOIN transactions t ON t.id = e.transaction_id AND t.merchant_id = e.merchant_id
       AND t.environment = e.environment
     WHERE e.id = ? AND ${EVIDENCE_SCOPE}`

export async function showHistoryItem(
  actor: UserActor,
  transactionId: string,
  historyId: string,
  environment: Environment
): Promise<HistoryItem> {
  const bindings = [historyId, transactionId, actor.merchantId, environment]
  const audit = auditedReadStatement(
    actor,
    {
      action: 'collections.history.show',
      outcome: 'success',
      target: { type: 'exchange_evidence', id: historyId },
      metadata: { transaction_id: transactionId, environment },
    },
    { sql: `EXISTS (SELECT 1 ${ITEM_IN_SCOPE})`, bindings }
  )
  const {
    audited,
    reads: [[row]],
  } = await withAuditRecord(audit, [
    statementQuery<EvidenceRow>(
      readConnection(),
      { sql: `SELECT ${EVIDENCE_COLUMNS} ${ITEM_IN_SCOPE}`, bindings },
      { prepare: true }
    ),
  ])
  if (!row || !audited) throw ApiError.notFound()
  return itemOf(row)
}
