/*
| Which snapshots of exchange evidence are read at all (portal-api.md › History item,
| Payload projection; decisions.md §5). Pure: decided from the row's columns alone, at
| write time and again at read time. A body that is not read is withheld whole, never
| cut: purged, legacy delivery attempts, a recorded bodiless capture, nothing stored,
| an unsupported schema, over the read bound. The item built from that decision is in
| project_evidence.ts.
*/
import type { EvidenceKind } from '#services/collections/history/evidence_kinds'
import {
  REPLY_BODY_CAPTURE_STATUSES,
  SYNC_BODY_CAPTURE_STATUSES,
  type BodyCaptureStatus,
  type CaptureStatus,
  type ReasonCode,
} from '#models/collections_vocabulary'
import {
  BODILESS_STATUSES,
  READ_BOUND_BYTES,
  SUPPORTED_SCHEMA_VERSIONS,
  type EvidenceFacts,
} from '#services/collections/history/projection'

export const DELIVERY_ATTEMPT: EvidenceKind = 'merchant_notification.delivery_attempt'

/**
 * Whether the snapshot of `facts` is projected at all. Everything that is withheld
 * unread (purged, legacy attempts, unsupported schema, a recorded bodiless capture,
 * nothing stored, over the read bound) is decided here from the row's columns alone,
 * at write time and again at read time; only readable snapshots have a stored
 * projection.
 */
export function snapshotReadable(facts: EvidenceFacts): boolean {
  return unreadReason(facts) === null
}

export type UnreadOutcome = { status: CaptureStatus; reason: ReasonCode | null }

export function unreadReason(record: EvidenceFacts): UnreadOutcome | null {
  if (record.purgedAt !== null) return { status: 'purged', reason: null }
  if (record.kind === DELIVERY_ATTEMPT) {
    return { status: 'omitted', reason: 'legacy_body_unverified' }
  }
  const recorded = recordedBodyStatus(record)
  if (recorded !== null && BODILESS_STATUSES.has(recorded)) {
    return {
      status: recorded === 'no_response' ? 'unavailable' : 'omitted',
      reason: recorded as ReasonCode,
    }
  }
  if (!record.hasSnapshot) {
    // A size recorded without the bytes: the snapshot went missing after capture.
    return record.snapshotSize === null
      ? { status: 'unavailable', reason: 'body_not_captured' }
      : { status: 'unavailable', reason: 'snapshot_unavailable' }
  }
  if (record.schemaVersion === null || !SUPPORTED_SCHEMA_VERSIONS.has(record.schemaVersion)) {
    return { status: 'unavailable', reason: 'snapshot_schema_unsupported' }
  }
  if (record.snapshotSize === null || record.snapshotSize > READ_BOUND_BYTES) {
    return { status: 'unavailable', reason: 'snapshot_limit_exceeded' }
  }
  return null
}

/** The recorded body capture state when it is one the item's kind can carry, else null. */
export function recordedBodyStatus(record: EvidenceFacts): BodyCaptureStatus | null {
  const value = record.bodyCaptureStatus
  if (value === null) return null
  const allowed: readonly string[] =
    record.kind === 'merchant_response.synchronous'
      ? SYNC_BODY_CAPTURE_STATUSES
      : REPLY_BODY_CAPTURE_STATUSES
  return allowed.includes(value) ? (value as BodyCaptureStatus) : null
}
