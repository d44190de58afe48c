/*
| Exchange evidence kinds (decisions.md §5) and how the Portal shows them
| (portal-api.md › Collections, "History behavior"). Every kind implies its source and
| direction; only the first five are ever shown, the provider and internal ones are
| stored but never leave the service.
*/
import type { HistoryDirection, HistoryEventType } from '#models/collections_vocabulary'

export const EVIDENCE_KINDS = [
  'merchant_request.validated',
  'merchant_response.synchronous',
  'merchant_notification.queued',
  'merchant_notification.response',
  'merchant_notification.delivery_attempt',
  'provider.request',
  'provider.response',
  'internal',
] as const
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number]

interface KindDefinition {
  source: 'merchant_api' | 'merchant_webhook' | 'provider' | 'internal'
  direction: 'inbound' | 'outbound' | 'internal'
  /** How the Portal shows it; null: never shown. */
  shownAs: { eventType: HistoryEventType; direction: HistoryDirection } | null
}

export const KIND_DEFINITIONS: Record<EvidenceKind, KindDefinition> = {
  'merchant_request.validated': {
    source: 'merchant_api',
    direction: 'inbound',
    shownAs: { eventType: 'merchant_request', direction: 'merchant_to_dlt' },
  },
  'merchant_response.synchronous': {
    source: 'merchant_api',
    direction: 'outbound',
    shownAs: { eventType: 'dlt_response', direction: 'dlt_to_merchant' },
  },
  'merchant_notification.queued': {
    source: 'merchant_webhook',
    direction: 'outbound',
    shownAs: { eventType: 'merchant_webhook_request', direction: 'dlt_to_merchant' },
  },
  'merchant_notification.response': {
    source: 'merchant_webhook',
    direction: 'inbound',
    shownAs: { eventType: 'merchant_webhook_response', direction: 'merchant_to_dlt' },
  },
  // Older delivery attempts: shown as a webhook request in the legacy format, no payload.
  'merchant_notification.delivery_attempt': {
    source: 'merchant_webhook',
    direction: 'outbound',
    shownAs: { eventType: 'merchant_webhook_request', direction: 'dlt_to_merchant' },
  },
  'provider.request': { source: 'provider', direction: 'outbound', shownAs: null },
  'provider.response': { source: 'provider', direction: 'inbound', shownAs: null },
  'internal': { source: 'internal', direction: 'internal', shownAs: null },
}

/** The kinds the Portal may show, for `WHERE kind IN (...)` and `history_available`. */
export const PERMITTED_KINDS = EVIDENCE_KINDS.filter((kind) => KIND_DEFINITIONS[kind].shownAs)

export function isEvidenceKind(value: unknown): value is EvidenceKind {
  return typeof value === 'string' && Object.hasOwn(KIND_DEFINITIONS, value)
}
