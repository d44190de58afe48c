/*
| What an import line becomes once parsed and checked (import_line.ts, import_event.ts):
| plain records, apart from the parsers so that each parser, and the derived event
| ids (derived_event_id.ts), import them one way.
*/
import type { Timestamp } from '#validators/rules/timestamp'
import type { Environment } from '#models/collections_vocabulary'
import type { OpenedSnapshot } from '#services/collections/history/projection'
import type { EvidenceKind } from '#services/collections/history/evidence_kinds'

export interface ImportedTransaction {
  merchantId: number
  environment: Environment
  merchantTransactionId: string
  amount: string | null
  currency: string
  paymentStatus: string | null
  legacyStatus: string | null
  paymentBrand: string
  archived: boolean
  credited: boolean
  createdAt: Timestamp | null
  updatedAt: Timestamp | null
  events: ImportedEvent[]
}

export interface ImportedEvent {
  id: string
  kind: EvidenceKind
  source: string
  direction: string
  capturedAt: Timestamp
  captureFormat: string
  schemaVersion: number
  /** The snapshot to seal (and project), or null when the event carries no body. */
  snapshot: OpenedSnapshot | null
  contentType: string | null
  bodyCaptureStatus: string | null
  eventId: string | null
  attemptNumber: number | null
  httpStatus: number | null
  deliveryState: string | null
  durationMs: number | null
  isRepeatedRequest: boolean | null
  /** null: captured_at + the retention period, computed when stored. */
  retainUntil: Timestamp | null
  legalHold: boolean
  purgedAt: Timestamp | null
}
