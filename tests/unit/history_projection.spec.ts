import { createHash } from 'node:crypto'
import { test } from '@japa/runner'
import {
  PROJECTION_VERSION,
  READ_BOUND_BYTES,
  type EvidenceRecord,
  type OpenedSnapshot,
} from '#services/collections/history/projection'
import {
  REASON_CODES,
  REPLY_BODY_CAPTURE_STATUSES,
  SYNC_BODY_CAPTURE_STATUSES,
} from '#models/collections_vocabulary'
import type { HistoryItem } from '#shapes/collections'
import { coverageOf } from '#services/collections/history/coverage'
import {
  historyItemOf,
  projectEvidence,
  projectSnapshot,
} from '#services/collections/history/project_evidence'
import { snapshotReadable } from '#services/collections/history/snapshot_readability'
import { decodeJson, nestingDepth } from '#services/collections/history/bounded_json'
import type { EvidenceKind } from '#services/collections/history/evidence_kinds'

/*
| portal-api.md › History item and Payload projection, as a pure function: one
| table-driven case per projection row, every body_capture_status and reason code,
| and hostile bodies.
*/

function record(kind: EvidenceKind, overrides: Partial<EvidenceRecord> = {}): EvidenceRecord {
  return {
    id: '01JNB8Q3M4ZC8Y6B2W9XK5T7RA',
    transactionId: 42,
    environment: 'live',
    kind,
    capturedAt: '2026-03-01T02:00:00.120000Z',
    captureFormat: 'sanitized_snapshot',
    schemaVersion: 2,
    hasSnapshot: true,
    snapshotSize: 100,
    contentType: 'application/json',
    bodyCaptureStatus: null,
    eventId: null,
    attemptNumber: null,
    httpStatus: null,
    deliveryState: null,
    durationMs: null,
    isRepeatedRequest: null,
    retainUntil: '2027-03-01T02:00:00.120000Z',
    purgedAt: null,
    ...overrides,
  }
}

const json = (value: unknown): OpenedSnapshot => ({ kind: 'json', text: JSON.stringify(value) })
const text = (value: string): OpenedSnapshot => ({ kind: 'text', text: value })

function project(kind: EvidenceKind, snapshot: OpenedSnapshot | null, overrides = {}): HistoryItem {
  const evidence = record(kind, overrides)
  return projectEvidence(evidence, snapshotReadable(evidence) ? snapshot : undefined)
}

const REQUEST = 'merchant_request.validated'
const SYNC = 'merchant_response.synchronous'
const QUEUED = 'merchant_notification.queued'
const REPLY = 'merchant_notification.response'
const ATTEMPT = 'merchant_notification.delivery_attempt'

/** JSON text of objects nested `depth` deep. */
const nest = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1)

const FULL_REQUEST = {
  merchant_transaction_id: 'ORD-1001_a',
  payment_brand: 'gcash',
  currency: 'PHP',
  amount: '1500.00',
  payment_status: 'PAID',
  channel: 4,
  is_card_payment: true,
}

test.group('History projection › payload rows (portal-api.md › Payload projection)', () => {
  const rows: Array<{
    row: string
    kind: EvidenceKind
    snapshot: OpenedSnapshot | null
    overrides?: Partial<EvidenceRecord>
    payload: Record<string, unknown> | null
    status: string
    omissions: Array<{ field_path: string; reason_code: string }>
  }> = [
    {
      row: 'validated merchant request: the seven fields, nothing else',
      kind: REQUEST,
      snapshot: json({ ...FULL_REQUEST, success_url: 'https://x', customer: { email: 'a@b.c' } }),
      payload: FULL_REQUEST,
      status: 'available',
      omissions: [
        { field_path: '*', reason_code: 'payment_url_excluded' },
        { field_path: '*', reason_code: 'portal_field_allowlist' },
      ],
    },
    {
      row: 'queued webhook: the request fields without channel and card flag',
      kind: QUEUED,
      snapshot: json(FULL_REQUEST),
      payload: {
        merchant_transaction_id: 'ORD-1001_a',
        payment_brand: 'gcash',
        currency: 'PHP',
        amount: '1500.00',
        payment_status: 'PAID',
      },
      status: 'available',
      omissions: [{ field_path: '*', reason_code: 'portal_field_allowlist' }],
    },
    {
      row: 'merchant reply JSON: five booleans and status',
      kind: REPLY,
      snapshot: json({
        acknowledged: true,
        ok: false,
        success: true,
        accepted: true,
        received: false,
        status: 'received',
        note: 'x',
      }),
      payload: {
        acknowledged: true,
        ok: false,
        success: true,
        accepted: true,
        received: false,
        status: 'received',
      },
      status: 'available',
      omissions: [{ field_path: '*', reason_code: 'merchant_response_field_allowlist' }],
    },
    {
      row: 'merchant reply text: exact words, trimmed and lowercased',
      kind: REPLY,
      snapshot: text('  ACK \n'),
      overrides: { contentType: 'text/plain' },
      payload: { text: 'ack' },
      status: 'available',
      omissions: [],
    },
    {
      row: 'legacy outbound attempt: no body, omitted',
      kind: ATTEMPT,
      snapshot: json(FULL_REQUEST),
      payload: null,
      status: 'omitted',
      omissions: [{ field_path: 'body', reason_code: 'legacy_body_unverified' }],
    },
    {
      row: 'service synchronous response: success, error_code, five data fields',
      kind: SYNC,
      snapshot: json({
        success: false,
        error_code: 'SUBMISSION_IN_PROGRESS',
        message: 'free text',
        data: {
          merchant_transaction_id: 'ORD-1',
          amount: '0.01',
          payment_status: 'PENDING',
          is_card_payment: false,
          timestamp: '2026-03-01T10:00:00.123456Z',
          checkout_url: 'https://pay',
          provider_transaction_id: 'P-1',
        },
      }),
      payload: {
        success: false,
        error_code: 'SUBMISSION_IN_PROGRESS',
        data: {
          merchant_transaction_id: 'ORD-1',
          amount: '0.01',
          payment_status: 'PENDING',
          is_card_payment: false,
          timestamp: '2026-03-01T10:00:00.123456Z',
        },
      },
      status: 'available',
      omissions: [
        { field_path: 'data.*', reason_code: 'payment_url_excluded' },
        { field_path: 'data.*', reason_code: 'response_fields_excluded' },
        { field_path: '*', reason_code: 'response_fields_excluded' },
      ],
    },
  ]
  for (const row of rows) {
    test(row.row, ({ assert }) => {
      const item = project(row.kind, row.snapshot, row.overrides)
      assert.deepEqual(item.payload, row.payload)
      assert.equal(item.capture_status, row.status)
      assert.deepEqual(item.omissions, row.omissions)
    })
  }

  test('each allowed field is checked against its rule; failures are omitted by name', ({
    assert,
  }) => {
    const cases: Array<[string, unknown]> = [
      ['merchant_transaction_id', 'x'.repeat(101)],
      ['merchant_transaction_id', 'ORD 1'],
      ['merchant_transaction_id', 123],
      ['payment_brand', 'x'.repeat(21)],
      ['payment_brand', 'g.cash'],
      ['currency', 'php'],
      ['currency', 'PHPX'],
      ['amount', 1500],
      ['amount', '1500'],
      ['amount', '1500.1'],
      ['amount', '-1.00'],
      ['amount', '1234567890123.00'],
      ['amount', '01.00'],
      ['payment_status', 'paid'],
      ['payment_status', 'SETTLED'],
      ['channel', 0],
      ['channel', 5],
      ['channel', 2.5],
      ['channel', '2'],
      ['is_card_payment', 'true'],
      ['is_card_payment', 1],
    ]
    for (const [field, value] of cases) {
      const item = project(REQUEST, json({ ...FULL_REQUEST, [field]: value }))
      assert.notProperty(item.payload!, field, `${field}=${JSON.stringify(value)}`)
      assert.deepEqual(item.omissions, [
        { field_path: field, reason_code: 'portal_field_allowlist' },
      ])
      if (typeof value === 'string' && value.length > 3) {
        assert.notInclude(JSON.stringify([item.payload, item.omissions]), value)
      }
    }
    const max = project(REQUEST, json({ ...FULL_REQUEST, amount: '999999999999.99' }))
    assert.equal(max.payload!.amount, '999999999999.99')
    const zero = project(REQUEST, json({ ...FULL_REQUEST, amount: '0.00' }))
    assert.equal(zero.payload!.amount, '0.00')
  })

  test('synchronous data.timestamp needs an explicit offset or Z and a real date', ({ assert }) => {
    for (const timestamp of [
      '2026-03-01T10:00:00',
      '2026-02-30T10:00:00Z',
      '2026-03-01T10:00:00.1234567Z',
      '2026-03-01 10:00:00Z',
      1_700_000_000,
    ]) {
      const item = project(SYNC, json({ success: true, data: { timestamp } }))
      assert.deepEqual(item.payload, { success: true })
      assert.deepEqual(item.omissions, [
        { field_path: 'data.timestamp', reason_code: 'response_fields_excluded' },
      ])
    }
    for (const timestamp of ['2026-03-01T10:00:00+08:00', '2026-03-01T10:00:00.1Z']) {
      const item = project(SYNC, json({ data: { timestamp } }))
      assert.deepEqual(item.payload, { data: { timestamp } })
    }
  })

  test('synchronous error_code outside its three values, non-boolean success, non-object data', ({
    assert,
  }) => {
    const item = project(
      SYNC,
      json({ success: 'yes', error_code: 'INTERNAL_ERROR', data: ['x'], ok: true })
    )
    assert.isNull(item.payload)
    assert.equal(item.capture_status, 'omitted')
    assert.deepEqual(item.response, {
      is_repeated_request: false,
      capture_stage: 'prepared_for_return',
      body_capture_status: 'omitted_no_permitted_fields',
    })
    assert.deepEqual(item.omissions, [
      { field_path: 'body', reason_code: 'omitted_no_permitted_fields' },
      { field_path: 'success', reason_code: 'response_fields_excluded' },
      { field_path: 'error_code', reason_code: 'response_fields_excluded' },
      { field_path: 'data', reason_code: 'response_fields_excluded' },
      { field_path: '*', reason_code: 'response_fields_excluded' },
    ])
    for (const code of [
      'TRANSACTION_REFERENCE_CONFLICT',
      'SUBMISSION_UNKNOWN',
      'SUBMISSION_IN_PROGRESS',
    ]) {
      assert.deepEqual(project(SYNC, json({ error_code: code })).payload, { error_code: code })
    }
  })

  test('reply status words and reply texts: only the listed ones', ({ assert }) => {
    for (const status of ['ok', 'success', 'accepted', 'received', 'failed', 'error']) {
      assert.deepEqual(project(REPLY, json({ status })).payload, { status })
    }
    for (const status of ['OK', 'done', 1, true]) {
      const item = project(REPLY, json({ status }))
      assert.deepEqual(item.payload, {})
      assert.deepEqual(item.omissions, [
        { field_path: 'status', reason_code: 'merchant_response_field_allowlist' },
      ])
    }
    for (const word of ['ok', 'ack', 'accepted', 'received', ' Received ', 'OK']) {
      assert.deepEqual(project(REPLY, text(word), { contentType: 'text/plain' }).payload, {
        text: word.trim().toLowerCase(),
      })
    }
    for (const word of ['okay', 'ok!', 'thanks', 'ok ok', '']) {
      const item = project(REPLY, text(word), { contentType: 'text/plain' })
      assert.isNull(item.payload, word)
      assert.equal(item.capture_status, 'omitted')
    }
  })
})

test.group('History projection › item fields (portal-api.md › History item)', () => {
  test('kinds map to event_type and direction', ({ assert }) => {
    const expected: Array<[EvidenceKind, string, string]> = [
      [REQUEST, 'merchant_request', 'merchant_to_dlt'],
      [SYNC, 'dlt_response', 'dlt_to_merchant'],
      [QUEUED, 'merchant_webhook_request', 'dlt_to_merchant'],
      [REPLY, 'merchant_webhook_response', 'merchant_to_dlt'],
      [ATTEMPT, 'merchant_webhook_request', 'dlt_to_merchant'],
    ]
    for (const [kind, eventType, direction] of expected) {
      const item = project(kind, json({}))
      assert.equal(item.event_type, eventType)
      assert.equal(item.direction, direction)
    }
  })

  test('provider and internal kinds are never projected', ({ assert }) => {
    for (const kind of ['provider.request', 'provider.response', 'internal'] as const) {
      assert.throws(() => projectEvidence(record(kind), json({})))
    }
  })

  test('metadata outside its contract range is null, never echoed', ({ assert }) => {
    const item = project(REPLY, json({ ok: true }), {
      eventId: 'evt id with spaces',
      attemptNumber: 0,
      httpStatus: 99,
      deliveryState: 'lost',
      durationMs: 86_400_001,
    })
    assert.isNull(item.event_id)
    assert.isNull(item.attempt_number)
    assert.isNull(item.http_status)
    assert.deepEqual(item.delivery, { body_capture_status: 'captured' })
    const long = project(QUEUED, json({}), { eventId: 'x'.repeat(129), attemptNumber: 1_000_001 })
    assert.isNull(long.event_id)
    assert.isNull(long.attempt_number)
    assert.isNull(long.delivery)
    const edge = project(QUEUED, json({}), {
      eventId: 'A'.repeat(128),
      attemptNumber: 1_000_000,
      httpStatus: 599,
      deliveryState: 'exhausted',
      durationMs: 0,
    })
    assert.equal(edge.event_id, 'A'.repeat(128))
    assert.equal(edge.attempt_number, 1_000_000)
    assert.equal(edge.http_status, 599)
    assert.deepEqual(edge.delivery, { state: 'exhausted', duration_ms: 0 })
  })

  test('every delivery state is shown', ({ assert }) => {
    for (const state of ['pending', 'delivering', 'delivered', 'failed', 'exhausted']) {
      assert.deepEqual(project(QUEUED, json({}), { deliveryState: state }).delivery, { state })
    }
  })

  test('response object only on synchronous responses; delivery only on webhook kinds', ({
    assert,
  }) => {
    assert.isNull(project(REQUEST, json({})).response)
    assert.isNull(project(REQUEST, json({})).delivery)
    assert.isNull(project(SYNC, json({ success: true })).delivery)
    assert.deepEqual(project(SYNC, json({ success: true }), { isRepeatedRequest: true }).response, {
      is_repeated_request: true,
      capture_stage: 'prepared_for_return',
      body_capture_status: 'captured',
    })
    assert.isNull(project(REPLY, json({ ok: true })).response)
  })

  test('purged: payload null, purged_at set, capture status purged, snapshot never read', ({
    assert,
  }) => {
    const purged = record(REQUEST, { purgedAt: '2027-03-02T00:00:00.000000Z', hasSnapshot: false })
    assert.isFalse(snapshotReadable(purged))
    const item = projectEvidence(purged, undefined)
    assert.equal(item.capture_status, 'purged')
    assert.isNull(item.payload)
    assert.equal(item.purged_at, '2027-03-02T00:00:00.000000Z')
    assert.deepEqual(item.omissions, [])
  })

  test('the read bound is the snapshot module bound (2 MiB of ciphertext)', ({ assert }) => {
    assert.equal(READ_BOUND_BYTES, 2 * 1024 * 1024)
    assert.isTrue(snapshotReadable(record(REQUEST, { snapshotSize: READ_BOUND_BYTES })))
    assert.isFalse(snapshotReadable(record(REQUEST, { snapshotSize: READ_BOUND_BYTES + 1 })))
  })
})

test.group('History projection › every body_capture_status', () => {
  type StateCase = { snapshot: OpenedSnapshot | null; overrides?: object; status: string }

  /** A state the capture recorded on a row without bytes: the record's word is shown. */
  const recorded = (state: string, status: string): StateCase => ({
    snapshot: null,
    overrides: { bodyCaptureStatus: state, hasSnapshot: false },
    status,
  })

  /** Recorded the same way on synchronous responses and merchant replies. */
  const recordedOnBoth: Record<string, StateCase> = {
    no_response: recorded('no_response', 'unavailable'),
    empty: recorded('empty', 'omitted'),
    omitted_unsupported_content_type: recorded('omitted_unsupported_content_type', 'omitted'),
    omitted_binary: recorded('omitted_binary', 'omitted'),
    omitted_sensitive: recorded('omitted_sensitive', 'omitted'),
  }

  const syncCases: Record<string, StateCase> = {
    ...recordedOnBoth,
    omitted_oversize: {
      snapshot: json({ success: true, pad: 'x'.repeat(256 * 1024) }),
      status: 'omitted',
    },
    captured: { snapshot: json({ success: true }), status: 'available' },
    captured_sanitized: { snapshot: json({ success: true, message: 'x' }), status: 'available' },
    // A recorded captured_invalid_json_text on a response without bytes keeps the record's word.
    captured_invalid_json_text: recorded('captured_invalid_json_text', 'unavailable'),
    omitted_non_json: {
      snapshot: text('<html>'),
      overrides: { contentType: 'text/html' },
      status: 'omitted',
    },
    omitted_invalid_json: {
      snapshot: { kind: 'json', text: '{"success": tru' },
      status: 'omitted',
    },
    omitted_unsupported_shape: { snapshot: json([{ success: true }]), status: 'omitted' },
    omitted_no_permitted_fields: { snapshot: json({ message: 'x' }), status: 'omitted' },
  }

  const replyCases: Record<string, StateCase> = {
    ...recordedOnBoth,
    omitted_oversize: {
      snapshot: text('ok'.repeat(140 * 1024)),
      overrides: { contentType: 'text/plain' },
      status: 'omitted',
    },
    captured: { snapshot: json({ received: true }), status: 'available' },
    captured_sanitized: { snapshot: json({ received: true, order: 1 }), status: 'available' },
    captured_invalid_json_text: {
      snapshot: text('ok'),
      overrides: { contentType: 'application/json; charset=utf-8' },
      status: 'available',
    },
  }

  const kinds = [
    {
      title: 'synchronous responses: all thirteen states',
      kind: SYNC,
      states: SYNC_BODY_CAPTURE_STATUSES,
      cases: syncCases,
      bodyStateOf: (item: HistoryItem) => item.response!.body_capture_status,
      payloadNullUnlessAvailable: true,
    },
    {
      title: 'merchant replies: all nine states',
      kind: REPLY,
      states: REPLY_BODY_CAPTURE_STATUSES,
      cases: replyCases,
      bodyStateOf: (item: HistoryItem) => item.delivery!.body_capture_status,
      payloadNullUnlessAvailable: false,
    },
  ] as const
  for (const { title, kind, states, cases, bodyStateOf, payloadNullUnlessAvailable } of kinds) {
    test(title, ({ assert }) => {
      assert.sameMembers(Object.keys(cases), [...states])
      for (const [state, { snapshot, overrides, status }] of Object.entries(cases)) {
        const item = project(kind, snapshot, overrides)
        assert.equal(bodyStateOf(item), state, state)
        assert.equal(item.capture_status, status, state)
        if (payloadNullUnlessAvailable && status !== 'available') assert.isNull(item.payload, state)
      }
    })
  }

  test('a recorded state the kind cannot carry is ignored', ({ assert }) => {
    const item = project(REPLY, json({ ok: true }), { bodyCaptureStatus: 'omitted_non_json' })
    assert.equal(item.capture_status, 'available')
    assert.equal(item.delivery!.body_capture_status, 'captured')
    const unknown = project(SYNC, json({ success: true }), { bodyCaptureStatus: 'truncated' })
    assert.equal(unknown.response!.body_capture_status, 'captured')
  })
})

test.group('History projection › every reason code', () => {
  const cases: Record<string, () => HistoryItem> = {
    portal_field_allowlist: () => project(REQUEST, json({ customer: {} })),
    merchant_response_field_allowlist: () => project(REPLY, json({ order_id: 1 })),
    payment_url_excluded: () => project(REQUEST, json({ failure_url: 'https://x' })),
    legacy_body_unverified: () => project(ATTEMPT, null),
    snapshot_limit_exceeded: () => project(REQUEST, null, { snapshotSize: READ_BOUND_BYTES + 1 }),
    snapshot_schema_unsupported: () => project(REQUEST, json({}), { schemaVersion: 3 }),
    snapshot_unreadable: () => project(REQUEST, null),
    snapshot_unavailable: () => project(REQUEST, null, { hasSnapshot: false, snapshotSize: 120 }),
    body_not_captured: () => project(REQUEST, null, { hasSnapshot: false, snapshotSize: null }),
    no_response: () =>
      project(REPLY, null, { bodyCaptureStatus: 'no_response', hasSnapshot: false }),
    empty: () => project(REPLY, null, { bodyCaptureStatus: 'empty', hasSnapshot: false }),
    omitted_oversize: () => project(REPLY, json({ ok: true, pad: 'x'.repeat(300_000) })),
    omitted_unsupported_content_type: () =>
      project(REPLY, null, { bodyCaptureStatus: 'omitted_unsupported_content_type' }),
    omitted_binary: () => project(REPLY, null, { bodyCaptureStatus: 'omitted_binary' }),
    omitted_sensitive: () => project(REPLY, null, { bodyCaptureStatus: 'omitted_sensitive' }),
    omitted_non_json: () => project(SYNC, text('hello')),
    omitted_invalid_json: () => project(SYNC, { kind: 'json', text: '{' }),
    omitted_unsupported_shape: () => project(SYNC, json('just a string')),
    omitted_no_permitted_fields: () => project(SYNC, json({})),
    response_fields_excluded: () => project(SYNC, json({ success: true, trace_id: 'T' })),
  }

  test('each of the twenty reason codes is produced, value-free', ({ assert }) => {
    assert.sameMembers(Object.keys(cases), [...REASON_CODES])
    for (const [reason, build] of Object.entries(cases)) {
      const item = build()
      assert.include(
        item.omissions.map((omission) => omission.reason_code),
        reason,
        reason
      )
      for (const omission of item.omissions) {
        assert.sameMembers(Object.keys(omission), ['field_path', 'reason_code'])
      }
    }
  })

  test('withheld bodies give their capture status', ({ assert }) => {
    const withheld: Array<[keyof typeof cases, string]> = [
      ['snapshot_limit_exceeded', 'unavailable'],
      ['snapshot_schema_unsupported', 'unavailable'],
      ['snapshot_unreadable', 'unavailable'],
      ['snapshot_unavailable', 'unavailable'],
      ['body_not_captured', 'unavailable'],
      ['no_response', 'unavailable'],
      ['empty', 'omitted'],
      ['legacy_body_unverified', 'omitted'],
    ]
    for (const [reason, status] of withheld) {
      assert.equal(cases[reason]().capture_status, status, reason)
    }
  })
})

test.group('History projection › hostile bodies', () => {
  test('huge: a request within the read bound is projected; a reply over 256 KiB is not', ({
    assert,
  }) => {
    const big = { ...FULL_REQUEST, blob: 'x'.repeat(1_500_000) }
    const request = project(REQUEST, json(big))
    assert.deepEqual(request.payload, FULL_REQUEST)
    assert.deepEqual(request.omissions, [
      { field_path: '*', reason_code: 'portal_field_allowlist' },
    ])
    const reply = project(REPLY, json({ ok: true, blob: 'x'.repeat(256 * 1024) }))
    assert.isNull(reply.payload)
    assert.equal(reply.delivery!.body_capture_status, 'omitted_oversize')
    // Exactly 256 KiB of JSON text is still decoded.
    const padding = 256 * 1024 - JSON.stringify({ ok: true, p: '' }).length
    const edge = project(REPLY, json({ ok: true, p: 'x'.repeat(padding) }))
    assert.deepEqual(edge.payload, { ok: true })
  })

  test('deep: depth 64 is decoded, 65 is not, and a very deep body is never parsed', ({
    assert,
  }) => {
    assert.equal(nestingDepth(nest(64)), 64)
    assert.isTrue(decodeJson(nest(64), null).ok)
    assert.deepEqual(decodeJson(nest(65), null), { ok: false, why: 'deep' })
    assert.equal(nestingDepth('{"a":"[[[[{{{{"}'), 1)
    assert.equal(nestingDepth('{"a":"\\"[[[["}'), 1)
    const deep = '['.repeat(200_000) + ']'.repeat(200_000)
    const reply = project(REPLY, { kind: 'json', text: deep })
    assert.equal(reply.delivery!.body_capture_status, 'omitted_oversize')
    const sync = project(SYNC, { kind: 'json', text: `{"success":true,"data":${nest(70)}}` })
    assert.equal(sync.response!.body_capture_status, 'omitted_unsupported_shape')
    const request = project(REQUEST, { kind: 'json', text: `{"x":${nest(70)}}` })
    assert.equal(request.capture_status, 'unavailable')
    assert.deepEqual(request.omissions, [
      { field_path: 'body', reason_code: 'snapshot_limit_exceeded' },
    ])
  })

  test('non-JSON: a text snapshot of a request or queued webhook is unreadable', ({ assert }) => {
    for (const kind of [REQUEST, QUEUED] as const) {
      const item = project(kind, text('merchant_transaction_id=ORD'))
      assert.equal(item.capture_status, 'unavailable')
      assert.isNull(item.payload)
      assert.notInclude(JSON.stringify(item), 'ORD')
    }
  })

  test('wrong top-level types: arrays, strings, numbers, null', ({ assert }) => {
    for (const body of [[FULL_REQUEST], 'ORD-1', 12, null, true]) {
      const request = project(REQUEST, json(body))
      assert.isNull(request.payload)
      assert.equal(request.capture_status, 'unavailable')
      const reply = project(REPLY, json(body))
      assert.isNull(reply.payload)
      assert.equal(reply.capture_status, 'omitted')
      const sync = project(SYNC, json(body))
      assert.equal(sync.response!.body_capture_status, 'omitted_unsupported_shape')
    }
  })

  test('extra nested fields: excluded whole; an allowed one failing its rule is named', ({
    assert,
  }) => {
    const item = project(
      REQUEST,
      json({
        ...FULL_REQUEST,
        customer: { name: 'Juan', card: { number: '4111111111111111', cvv: '123' } },
        amount: { value: '1.00' },
      })
    )
    assert.notProperty(item.payload!, 'amount')
    assert.deepEqual(item.omissions, [
      { field_path: 'amount', reason_code: 'portal_field_allowlist' },
      { field_path: '*', reason_code: 'portal_field_allowlist' },
    ])
    const shown = JSON.stringify([item.payload, item.omissions])
    for (const leaked of ['Juan', '4111', 'cvv', 'number']) assert.notInclude(shown, leaked)
  })

  test('__proto__ and constructor keys stay plain excluded fields', ({ assert }) => {
    const hostile = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"ok":true}'
    const item = project(REPLY, { kind: 'json', text: hostile })
    assert.deepEqual(item.payload, { ok: true })
    assert.equal(Object.getPrototypeOf(item.payload), Object.prototype)
    assert.isUndefined(({} as any).polluted)
    assert.deepEqual(item.omissions, [
      { field_path: '*', reason_code: 'merchant_response_field_allowlist' },
    ])
    const request = project(REQUEST, {
      kind: 'json',
      text: '{"__proto__":{"amount":"9.99"},"currency":"PHP"}',
    })
    assert.deepEqual(request.payload, { currency: 'PHP' })
  })

  test('omission paths come from the allowlists only: a key the sender chose is never named', ({
    assert,
  }) => {
    const body: Record<string, unknown> = {
      ...FULL_REQUEST,
      'juan@example.com': 1,
      '4111111111111111': 2,
      'https_pay_example_com_tok_SECRETNAME': 1,
      'callback_SECRET2': 'x',
      'currency': 'php',
    }
    for (let index = 0; index < 500; index++) body[`field_${index}`] = index
    const item = project(REQUEST, json(body))
    assert.deepEqual(item.omissions, [
      { field_path: 'currency', reason_code: 'portal_field_allowlist' },
      { field_path: '*', reason_code: 'portal_field_allowlist' },
      { field_path: '*', reason_code: 'payment_url_excluded' },
    ])
    const sync = project(
      SYNC,
      json({ success: true, SECRET3: 1, data: { SECRET4_url: 'x', SECRET5: 2, amount: 1 } })
    )
    assert.deepEqual(sync.omissions, [
      { field_path: 'data.amount', reason_code: 'response_fields_excluded' },
      { field_path: 'data.*', reason_code: 'payment_url_excluded' },
      { field_path: 'data.*', reason_code: 'response_fields_excluded' },
      { field_path: '*', reason_code: 'response_fields_excluded' },
    ])
    const shown = JSON.stringify([item.omissions, sync.omissions])
    for (const leaked of ['juan', '4111', 'SECRET', 'field_4']) assert.notInclude(shown, leaked)
  })

  test('duplicate JSON keys: the last one is what is checked and shown', ({ assert }) => {
    const item = project(REQUEST, { kind: 'json', text: '{"currency":"PHP","currency":"usd"}' })
    assert.deepEqual(item.payload, {})
    assert.deepEqual(item.omissions, [
      { field_path: 'currency', reason_code: 'portal_field_allowlist' },
    ])
  })
})

test.group('History projection › coverage', () => {
  test('captured when any unpurged remains, purged when all purged, else not_captured', ({
    assert,
  }) => {
    assert.deepEqual(
      coverageOf({
        merchant_request: { total: 2, unpurged: 1 },
        dlt_response: { total: 2, unpurged: 0 },
        merchant_webhook_response: { total: 0, unpurged: 0 },
      }),
      {
        merchant_request: 'captured',
        dlt_response: 'purged',
        merchant_webhook_request: 'not_captured',
        merchant_webhook_response: 'not_captured',
      }
    )
  })
})

test.group('History projection › stored at write time, served at read time', () => {
  test("a read serves the projection stored at write time; the row's columns still withhold", ({
    assert,
  }) => {
    const evidence = record(REQUEST)
    const stored = projectSnapshot(evidence, json({ ...FULL_REQUEST, note: 'x' }))
    assert.isNotNull(stored)
    const item = historyItemOf(evidence, stored!)
    assert.deepEqual(item.payload, FULL_REQUEST)
    assert.deepEqual(item.omissions, [{ field_path: '*', reason_code: 'portal_field_allowlist' }])
    // Purged since: the stored projection is ignored.
    const purged = historyItemOf({ ...evidence, purgedAt: '2027-03-02T00:00:00.000000Z' }, stored!)
    assert.equal(purged.capture_status, 'purged')
    assert.isNull(purged.payload)
    // Withheld from the columns alone: nothing is stored.
    assert.isNull(projectSnapshot(record(REQUEST, { schemaVersion: 3 }), json(FULL_REQUEST)))
    assert.isNull(projectSnapshot(record(ATTEMPT), json(FULL_REQUEST)))
  })

  test('a stored projection that does not open is snapshot_unreadable; none stored, snapshot_unavailable', ({
    assert,
  }) => {
    const reply = record(REPLY, { deliveryState: 'delivered' })
    const unreadable = historyItemOf(reply, 'unreadable')
    assert.equal(unreadable.capture_status, 'unavailable')
    assert.isNull(unreadable.payload)
    assert.deepEqual(unreadable.omissions, [
      { field_path: 'body', reason_code: 'snapshot_unreadable' },
    ])
    assert.deepEqual(unreadable.delivery, { state: 'delivered', body_capture_status: null })
    const missing = historyItemOf(reply, 'missing')
    assert.deepEqual(missing.omissions, [
      { field_path: 'body', reason_code: 'snapshot_unavailable' },
    ])
  })

  test('a body the import already parsed projects as its text does, bounds included', ({
    assert,
  }) => {
    const cases: Array<[EvidenceKind, string]> = [
      [REQUEST, JSON.stringify({ ...FULL_REQUEST, customer: {} })],
      [REQUEST, `{"x":${nest(70)}}`],
      [
        SYNC,
        JSON.stringify({ success: true, data: { amount: '1.00' }, blob: 'x'.repeat(300_000) }),
      ],
      [REPLY, '{"__proto__":{"ok":false},"ok":true}'],
    ]
    for (const [kind, body] of cases) {
      const evidence = record(kind)
      assert.deepEqual(
        projectSnapshot(evidence, {
          kind: 'json',
          text: body,
          parsed: { value: JSON.parse(body) },
        }),
        projectSnapshot(evidence, { kind: 'json', text: body })
      )
    }
  })

  test('PROJECTION_VERSION changes whenever what a snapshot projects to changes', ({ assert }) => {
    // What the rules make of a fixed corpus. When this fingerprint changes, bump
    // PROJECTION_VERSION (history:reproject then re-projects stored rows) and record the
    // new fingerprint for the new version.
    const corpus: Array<[EvidenceKind, OpenedSnapshot, Partial<EvidenceRecord>]> = [
      [REQUEST, json({ ...FULL_REQUEST, success_url: 'u', customer: {}, amount: 1 }), {}],
      [QUEUED, json({ ...FULL_REQUEST, provider_reference: 'p' }), {}],
      [
        SYNC,
        json({
          success: true,
          error_code: 'SUBMISSION_UNKNOWN',
          data: { ...FULL_REQUEST, timestamp: '2026-03-01T10:00:00Z', payment_url: 'u' },
          x: 1,
        }),
        {},
      ],
      [SYNC, json({ x: 1 }), {}],
      [SYNC, text('ok'), {}],
      [REPLY, json({ ok: true, status: 'received', acknowledged: 'yes', message: 'm' }), {}],
      [REPLY, text(' ACK '), { contentType: 'application/json' }],
      [REPLY, text('nope'), { contentType: 'text/plain' }],
    ]
    const outputs = corpus.map(([kind, snapshot, overrides]) =>
      projectSnapshot(
        record(kind, { deliveryState: 'failed', durationMs: 5, ...overrides }),
        snapshot
      )
    )
    const fingerprint = createHash('sha256').update(JSON.stringify(outputs)).digest('hex')
    const FINGERPRINTS: Record<number, string> = {
      2: 'bab6b4736aedf63e7e85c1a143317e388220e8f88c41dbaf8feb1f000b60b279',
    }
    assert.equal(fingerprint, FINGERPRINTS[PROJECTION_VERSION])
  })
})
