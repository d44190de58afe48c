/*
| Building blocks of the collections tests: transactions and their exchange evidence
| in the import format of decisions.md §5.
|
| `importTransactions` loads them through the import operation itself, so every
| rule is tested on data as `collections:import` stores it.
*/
import { Readable } from 'node:stream'
import { ulid } from 'ulid'
import db from '@adonisjs/lucid/services/db'
import type { EvidenceKind } from '#services/collections/history/evidence_kinds'
import type { Environment } from '#models/collections_vocabulary'
import { importJsonLines } from '#services/collections/import/import_transactions'

export interface ImportEvent {
  kind: EvidenceKind
  id?: string
  captured_at: string
  schema_version?: number | null
  capture_format?: string
  content_type?: string | null
  body?: unknown
  body_text?: string
  body_capture_status?: string | null
  event_id?: string | null
  attempt_number?: number | null
  http_status?: number | null
  delivery_state?: string | null
  duration_ms?: number | null
  is_repeated_request?: boolean | null
  retain_until?: string
  legal_hold?: boolean
  purged_at?: string | null
}

export interface ImportLine {
  merchant_id: number
  environment: Environment
  merchant_transaction_id: string
  amount?: string | null
  currency?: string
  payment_status?: string | null
  legacy_status?: string | null
  payment_brand?: string
  archived?: boolean
  created_at?: string | null
  updated_at?: string | null
  events?: ImportEvent[]
}

/**
 * Loads the lines through the real import (`importJsonLines`, as `collections:import`
 * runs it); returns the transaction ids and the evidence ids per line. Events get an
 * explicit ULID here so tests can address them.
 */
export async function importTransactions(lines: ImportLine[]) {
  const complete = lines.map((line) => ({
    amount: '100.00',
    currency: 'PHP',
    payment_status: 'PAID',
    legacy_status: null,
    payment_brand: 'gcash',
    archived: false,
    created_at: '2026-03-01T10:00:00+08:00',
    updated_at: null,
    ...line,
    events: (line.events ?? []).map((event) => {
      const hasBody = event.body !== undefined || event.body_text !== undefined
      return {
        schema_version: 2,
        capture_format: 'sanitized_snapshot',
        ...(hasBody ? { content_type: 'application/json' } : {}),
        ...event,
        id: event.id ?? ulid(),
      }
    }),
  }))
  await importJsonLines(Readable.from([complete.map((line) => JSON.stringify(line)).join('\n')]))
  const stored: Array<{ id: number; events: string[] }> = []
  for (const line of complete) {
    const row = await db
      .from('transactions')
      .where({
        merchant_id: line.merchant_id,
        environment: line.environment,
        merchant_transaction_id: line.merchant_transaction_id,
      })
      .firstOrFail()
    stored.push({ id: Number(row.id), events: line.events.map((event) => event.id) })
  }
  return stored
}

/** A validated merchant request of the import examples (decisions.md §5). */
export function merchantRequest(reference: string, capturedAt: string): ImportEvent {
  return {
    kind: 'merchant_request.validated',
    captured_at: capturedAt,
    body: {
      merchant_transaction_id: reference,
      amount: '1500.00',
      currency: 'PHP',
      payment_brand: 'gcash',
      channel: 2,
      is_card_payment: false,
      success_url: 'https://shop.example/ok',
      customer: { email: 'a@b.c' },
    },
  }
}

export async function historyAuditRows() {
  return db.from('audit_logs').whereLike('action', 'collections.history.%').orderBy('id', 'asc')
}
