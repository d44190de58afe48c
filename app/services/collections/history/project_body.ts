/*
| The body-dependent part of a history item, by payload kind (project_evidence.ts calls
| it for a readable snapshot): the allowlists of projection.ts applied to the opened
| snapshot, every other field omitted with a reason code and never named.
*/
import { isPlainObject } from '#support/plain_object'
import { decodeJson } from '#services/collections/history/bounded_json'
import { OmissionList, pickAllowed } from '#services/collections/history/omission_list'
import {
  isBoolean,
  REPLY_STATUSES,
  REPLY_TEXTS,
  RESPONSE_DECODE_BOUND_BYTES,
  SYNC_DATA_FIELDS,
  SYNC_ERROR_CODES,
  URL_LIKE,
  type FieldRule,
  type Omission,
  type OpenedSnapshot,
  type Payload,
} from '#services/collections/history/projection'
import {
  REPLY_BOOLEANS,
  type BodyCaptureStatus,
  type CaptureStatus,
  type ReasonCode,
} from '#models/collections_vocabulary'

export interface BodyProjection {
  status: CaptureStatus
  payload: Payload | null
  omissions: Omission[]
  bodyCaptureStatus: BodyCaptureStatus | null
}

export function withheld(
  status: CaptureStatus,
  reason: ReasonCode,
  bodyCaptureStatus: BodyCaptureStatus | null
): BodyProjection {
  return {
    status,
    payload: null,
    omissions: [{ field_path: 'body', reason_code: reason }],
    bodyCaptureStatus,
  }
}

// ---------------------------------------------------------------------------------
// Per payload kind

/** Validated merchant request and queued webhook: a JSON object under a fixed allowlist. */
export function projectRequest(
  snapshot: OpenedSnapshot,
  rules: Record<string, FieldRule>
): BodyProjection {
  if (snapshot.kind !== 'json') return withheld('unavailable', 'snapshot_unreadable', null)
  const decoded = decodeJson(snapshot.text, null, snapshot.parsed)
  if (!decoded.ok) {
    return decoded.why === 'deep'
      ? withheld('unavailable', 'snapshot_limit_exceeded', null)
      : withheld('unavailable', 'snapshot_unreadable', null)
  }
  // The service validated these as JSON objects; anything else is not its capture.
  if (!isPlainObject(decoded.value)) return withheld('unavailable', 'snapshot_unreadable', null)
  const omissions = new OmissionList()
  const payload = pickAllowed(decoded.value, rules, 'portal_field_allowlist', omissions)
  return { status: 'available', payload, omissions: omissions.toArray(), bodyCaptureStatus: null }
}

/** The service's synchronous response: `success`, `error_code`, and five `data` fields. */
export function projectSynchronousResponse(snapshot: OpenedSnapshot): BodyProjection {
  if (snapshot.kind !== 'json') return withheld('omitted', 'omitted_non_json', 'omitted_non_json')
  const decoded = decodeJson(snapshot.text, RESPONSE_DECODE_BOUND_BYTES, snapshot.parsed)
  if (!decoded.ok) {
    if (decoded.why === 'oversize')
      return withheld('omitted', 'omitted_oversize', 'omitted_oversize')
    if (decoded.why === 'deep') {
      return withheld('omitted', 'omitted_unsupported_shape', 'omitted_unsupported_shape')
    }
    return withheld('omitted', 'omitted_invalid_json', 'omitted_invalid_json')
  }
  const body = decoded.value
  if (!isPlainObject(body)) {
    return withheld('omitted', 'omitted_unsupported_shape', 'omitted_unsupported_shape')
  }
  const omissions = new OmissionList()
  const payload: Payload = {}
  if (Object.hasOwn(body, 'success')) {
    if (isBoolean(body.success)) payload.success = body.success
    else omissions.addField('success', 'response_fields_excluded')
  }
  if (Object.hasOwn(body, 'error_code')) {
    const code = body.error_code
    if (typeof code === 'string' && SYNC_ERROR_CODES.has(code)) payload.error_code = code
    else omissions.addField('error_code', 'response_fields_excluded')
  }
  if (Object.hasOwn(body, 'data')) {
    if (isPlainObject(body.data)) {
      const data = pickAllowed(
        body.data,
        SYNC_DATA_FIELDS,
        'response_fields_excluded',
        omissions,
        'data'
      )
      if (Object.keys(data).length > 0) payload.data = data
    } else {
      omissions.addField('data', 'response_fields_excluded')
    }
  }
  for (const name of Object.keys(body)) {
    if (name === 'success' || name === 'error_code' || name === 'data') continue
    omissions.addUnlisted(
      '',
      URL_LIKE.test(name) ? 'payment_url_excluded' : 'response_fields_excluded'
    )
  }
  if (Object.keys(payload).length === 0) {
    return {
      status: 'omitted',
      payload: null,
      omissions: [
        { field_path: 'body', reason_code: 'omitted_no_permitted_fields' },
        ...omissions.toArray(),
      ],
      bodyCaptureStatus: 'omitted_no_permitted_fields',
    }
  }
  return {
    status: 'available',
    payload,
    omissions: omissions.toArray(),
    bodyCaptureStatus: omissions.size === 0 ? 'captured' : 'captured_sanitized',
  }
}

const JSON_CONTENT_TYPE = /^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

/**
 * A merchant's webhook reply: a JSON object under the reply allowlist, or a text
 * reply that is exactly one of the acknowledgement words (trimmed, lowercased),
 * shown as `{text: "<word>"}`. Text sent as JSON that did not parse is
 * `captured_invalid_json_text` and follows the text rule.
 */
export function projectReply(snapshot: OpenedSnapshot, contentType: string | null): BodyProjection {
  if (snapshot.kind === 'text') {
    const invalidJson = contentType !== null && JSON_CONTENT_TYPE.test(contentType)
    return projectReplyText(snapshot.text, invalidJson)
  }
  const decoded = decodeJson(snapshot.text, RESPONSE_DECODE_BOUND_BYTES, snapshot.parsed)
  if (!decoded.ok) {
    if (decoded.why === 'invalid') return withheld('unavailable', 'snapshot_unreadable', null)
    return withheld('omitted', 'omitted_oversize', 'omitted_oversize')
  }
  const body = decoded.value
  if (!isPlainObject(body)) {
    return withheld('omitted', 'merchant_response_field_allowlist', 'captured_sanitized')
  }
  const omissions = new OmissionList()
  const payload: Payload = {}
  for (const name of REPLY_BOOLEANS) {
    if (!Object.hasOwn(body, name)) continue
    if (isBoolean(body[name])) payload[name] = body[name]
    else omissions.addField(name, 'merchant_response_field_allowlist')
  }
  if (Object.hasOwn(body, 'status')) {
    const status = body.status
    if (typeof status === 'string' && REPLY_STATUSES.has(status)) payload.status = status
    else omissions.addField('status', 'merchant_response_field_allowlist')
  }
  for (const name of Object.keys(body)) {
    if (name === 'status' || (REPLY_BOOLEANS as readonly string[]).includes(name)) continue
    omissions.addUnlisted(
      '',
      URL_LIKE.test(name) ? 'payment_url_excluded' : 'merchant_response_field_allowlist'
    )
  }
  return {
    status: 'available',
    payload,
    omissions: omissions.toArray(),
    bodyCaptureStatus: omissions.size === 0 ? 'captured' : 'captured_sanitized',
  }
}

function projectReplyText(text: string, invalidJson: boolean): BodyProjection {
  if (Buffer.byteLength(text) > RESPONSE_DECODE_BOUND_BYTES) {
    return withheld('omitted', 'omitted_oversize', 'omitted_oversize')
  }
  const word = text.trim().toLowerCase()
  if (REPLY_TEXTS.has(word)) {
    return {
      status: 'available',
      payload: { text: word },
      omissions: [],
      bodyCaptureStatus: invalidJson ? 'captured_invalid_json_text' : 'captured',
    }
  }
  return withheld(
    'omitted',
    'merchant_response_field_allowlist',
    invalidJson ? 'captured_invalid_json_text' : 'captured_sanitized'
  )
}
