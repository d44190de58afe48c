/*
| The Portal's view of one piece of exchange evidence (portal-api.md › History item,
| Payload projection, Collections › "History behavior"; decisions.md §5). Pure: no
| database, no HTTP, no decryption.
|
| It runs when evidence is written (the import, `history:reproject`), not when it is
| read: `projectSnapshot()` turns an opened snapshot into the body-dependent part of
| the item (`StoredProjection`), which is sealed and stored beside the snapshot. A
| read builds the item with `historyItemOf()` from the row's columns and that stored
| part, so its cost never depends on the size of the captured bodies.
|
| Rules kept here, once:
| - fixed allowlists per payload kind; every other field is excluded and reported in
|   `omissions` with a reason code, never with its value, and never with its name
|   either: a path names an allowlisted field, or `*` ("fields not on the allowlist")
|   at its level (`*`, `data.*`), since a key chosen by the sender can carry data;
| - whole bodies are withheld rather than cut (never truncated): purged, legacy,
|   unsupported schema, over the 2 MiB read bound, unreadable, not captured;
| - JSON response bodies are decoded up to 256 KiB and depth 64; request bodies are
|   bounded by the same depth (their size by the read bound);
| - nothing is filled in from elsewhere: an absent field stays absent.
|
| Its tables (bounds, states, reasons, allowlists) and shapes are in projection.ts; the
| body by payload kind in project_body.ts; which snapshots are read at all in
| snapshot_readability.ts.
*/
import { KIND_DEFINITIONS } from '#services/collections/history/evidence_kinds'
import {
  ATTEMPT_NUMBER_RANGE,
  DELIVERY_STATES,
  DURATION_MS_RANGE,
  EVENT_ID_PATTERN,
  HTTP_STATUS_RANGE,
  type DeliveryState,
  type ReplyBodyCaptureStatus,
} from '#models/collections_vocabulary'
import {
  REQUEST_FIELDS,
  WEBHOOK_FIELDS,
  type EvidenceFacts,
  type EvidenceRecord,
  type OpenedSnapshot,
  type StoredProjection,
  type StoredProjectionRead,
} from '#services/collections/history/projection'
import type { HistoryItem } from '#shapes/collections'
import {
  projectReply,
  projectRequest,
  projectSynchronousResponse,
  withheld,
  type BodyProjection,
} from '#services/collections/history/project_body'
import {
  DELIVERY_ATTEMPT,
  recordedBodyStatus,
  snapshotReadable,
  unreadReason,
} from '#services/collections/history/snapshot_readability'

const LEGACY_FORMAT = 'legacy_sanitized_snapshot'

/**
 * The projection to store for a readable snapshot (`snapshotReadable(facts)`), given
 * the opened snapshot, or null when it could not be opened (then the stored
 * projection says `snapshot_unreadable`). Null when the snapshot is not readable:
 * nothing is stored, a read decides from the columns.
 */
export function projectSnapshot(
  facts: EvidenceFacts,
  snapshot: OpenedSnapshot | null
): StoredProjection | null {
  if (!snapshotReadable(facts)) return null
  return storedPartOf(facts, projectBody(facts, snapshot))
}

/**
 * The history item of a row read from the database: withheld from its columns when
 * its snapshot is not readable, else built from its stored projection.
 */
export function historyItemOf(record: EvidenceRecord, stored: StoredProjectionRead): HistoryItem {
  const shownAs = KIND_DEFINITIONS[record.kind].shownAs
  if (!shownAs) throw new Error(`evidence kind ${record.kind} is never shown`)
  let part: StoredProjection
  const unread = unreadReason(record)
  if (unread) {
    part = storedPartOf(record, {
      status: unread.status,
      payload: null,
      omissions: unread.reason ? [{ field_path: 'body', reason_code: unread.reason }] : [],
      bodyCaptureStatus: recordedBodyStatus(record),
    })
  } else if (stored === 'missing') {
    part = storedPartOf(
      record,
      withheld('unavailable', 'snapshot_unavailable', recordedBodyStatus(record))
    )
  } else if (stored === 'unreadable') {
    part = storedPartOf(
      record,
      withheld('unavailable', 'snapshot_unreadable', recordedBodyStatus(record))
    )
  } else {
    part = stored
  }
  return {
    id: record.id,
    transaction_id: record.transactionId,
    environment: record.environment,
    event_type: shownAs.eventType,
    direction: shownAs.direction,
    captured_at: record.capturedAt,
    capture_format: record.kind === DELIVERY_ATTEMPT ? LEGACY_FORMAT : record.captureFormat,
    capture_status: part.capture_status,
    event_id: eventIdOf(record.eventId),
    attempt_number: integerIn(record.attemptNumber, ATTEMPT_NUMBER_RANGE),
    http_status: integerIn(record.httpStatus, HTTP_STATUS_RANGE),
    delivery: part.delivery,
    response: part.response,
    payload: part.payload,
    omissions: part.omissions,
    retain_until: record.retainUntil,
    purged_at: record.purgedAt,
  }
}

/**
 * Write time and read time in one call (the unit tests' view): the item `record`
 * shows once `snapshot` (opened, or null when it could not be) has been projected.
 * `snapshot` is ignored when the record is not readable.
 */
export function projectEvidence(
  record: EvidenceRecord,
  snapshot: OpenedSnapshot | null | undefined
): HistoryItem {
  return historyItemOf(record, projectSnapshot(record, snapshot ?? null) ?? 'missing')
}

function storedPartOf(facts: EvidenceFacts, body: BodyProjection): StoredProjection {
  return {
    capture_status: body.status,
    payload: body.payload,
    omissions: body.omissions,
    delivery: deliveryOf(facts, body),
    response:
      facts.kind === 'merchant_response.synchronous'
        ? {
            is_repeated_request: facts.isRepeatedRequest === true,
            capture_stage: 'prepared_for_return',
            body_capture_status: body.bodyCaptureStatus,
          }
        : null,
  }
}

/** The body of a readable snapshot, by payload kind (null: it could not be opened). */
function projectBody(facts: EvidenceFacts, snapshot: OpenedSnapshot | null): BodyProjection {
  if (!snapshot) return withheld('unavailable', 'snapshot_unreadable', recordedBodyStatus(facts))
  switch (facts.kind) {
    case 'merchant_request.validated':
      return projectRequest(snapshot, REQUEST_FIELDS)
    case 'merchant_notification.queued':
      return projectRequest(snapshot, WEBHOOK_FIELDS)
    case 'merchant_response.synchronous':
      return projectSynchronousResponse(snapshot)
    case 'merchant_notification.response':
      return projectReply(snapshot, facts.contentType)
    default:
      // Unreachable: delivery attempts are never read, other kinds never shown.
      return withheld('unavailable', 'snapshot_schema_unsupported', null)
  }
}

// ---------------------------------------------------------------------------------
// Metadata

function eventIdOf(value: string | null): string | null {
  return value !== null && EVENT_ID_PATTERN.test(value) ? value : null
}

function integerIn(
  value: number | null,
  { min, max }: { min: number; max: number }
): number | null {
  return value !== null && Number.isInteger(value) && value >= min && value <= max ? value : null
}

function deliveryOf(record: EvidenceFacts, body: BodyProjection): HistoryItem['delivery'] {
  if (KIND_DEFINITIONS[record.kind].source !== 'merchant_webhook') return null
  const delivery: NonNullable<HistoryItem['delivery']> = {}
  const state = record.deliveryState
  if (state !== null && (DELIVERY_STATES as readonly string[]).includes(state)) {
    delivery.state = state as DeliveryState
  }
  const duration = integerIn(record.durationMs, DURATION_MS_RANGE)
  if (duration !== null) delivery.duration_ms = duration
  if (record.kind === 'merchant_notification.response') {
    // A reply's body is never checked as JSON: its state is one of the reply states.
    delivery.body_capture_status = body.bodyCaptureStatus as ReplyBodyCaptureStatus | null
    return delivery
  }
  return Object.keys(delivery).length > 0 ? delivery : null
}
