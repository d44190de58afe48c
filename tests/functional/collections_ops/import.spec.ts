/*
| `node ace collections:import` (decisions.md §4-5): what a line becomes, the strict
| checks of every line (an error naming the line, nothing of it written, the lines
| before it kept), idempotent re-imports, standard input, and constant memory.
*/
import { Readable } from 'node:stream'
import v8 from 'node:v8'
import vm from 'node:vm'
import { writeFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { runCommand, terminalOutput } from '#tests/helpers/foundation'
import { overrideEnv } from '#tests/helpers/env'
import {
  eventOf,
  importLines,
  jsonLinesOf,
  failureOf,
  transactionLine,
  type Line,
} from '#tests/helpers/collections_import'
import { MerchantFactory } from '#database/factories/merchant_factory'
import { openSnapshot } from '#services/collections/history/evidence_snapshot'
import { importJsonLines } from '#services/collections/import/import_transactions'
import CollectionsImport from '../../../commands/collections_import.js'

const EVENT_ID = '01KJKHZEBRZRA2A3QBT3R6CWDN'

async function transactionsOf(merchantId: number) {
  return db
    .from('transactions')
    .where('merchant_id', merchantId)
    .orderBy('merchant_transaction_id')
    .select('*')
}

async function referencesOf(merchantId: number) {
  const rows = await transactionsOf(merchantId)
  return rows.map((row) => row.merchant_transaction_id as string)
}

async function evidenceCount() {
  const row = await db.from('exchange_evidence').count('* as total').first()
  return Number(row?.total ?? 0)
}

test.group('collections:import › what a line becomes', (group) => {
  group.each.setup(() => resetState())

  test('stores the transaction and its evidence exactly as given', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const result = await importLines([
      transactionLine(merchant.id, {
        amount: '0.07',
        payment_status: null,
        legacy_status: 'S',
        archived: true,
        credited: true,
        created_at: '2026-03-01T10:00:00.123456+08:00',
        events: [
          eventOf({
            id: EVENT_ID,
            kind: 'merchant_response.synchronous',
            captured_at: '2026-03-01T10:00:00.654321+08:00',
            schema_version: 1,
            body: { success: true, data: { amount: '0.07' }, payment_url: 'https://pay.example' },
            content_type: 'application/json',
            body_capture_status: 'omitted_unsupported_shape',
            http_status: 201,
            is_repeated_request: true,
            legal_hold: true,
          }),
          eventOf({
            kind: 'merchant_notification.response',
            body_text: 'OK\tthanks\n',
            event_id: 'evt_1-A',
            attempt_number: 1_000_000,
            http_status: 599,
            delivery_state: 'exhausted',
            duration_ms: 86_400_000,
          }),
          eventOf({
            kind: 'merchant_notification.delivery_attempt',
            purged_at: '2026-04-01T00:00:00Z',
            retain_until: '2026-03-31T00:00:00Z',
          }),
        ],
      }),
    ])
    assert.equal(result.transactions, 1)
    assert.equal(result.events, 3)

    const [row] = await transactionsOf(merchant.id)
    assert.equal(row.amount, '0.07')
    assert.equal(row.status, 'PAID')
    assert.isTrue(row.is_archived)
    assert.isTrue(row.is_credited)
    const micros = await db.rawQuery(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at FROM transactions`
    )
    assert.equal(micros.rows[0].at, '2026-03-01T02:00:00.123456')

    const events = await db
      .from('exchange_evidence')
      .orderBy('captured_at')
      .orderBy('id')
      .select('*')
    const sync = events.find((event) => event.id === EVENT_ID)
    assert.equal(sync.transaction_id, row.id)
    assert.equal(sync.merchant_id, merchant.id)
    assert.equal(sync.environment, 'live')
    assert.equal(sync.source, 'merchant_api')
    assert.equal(sync.direction, 'outbound')
    assert.equal(sync.schema_version, 1)
    assert.isTrue(sync.is_repeated_request)
    assert.isTrue(sync.legal_hold)
    assert.equal(sync.body_capture_status, 'omitted_unsupported_shape')
    assert.deepEqual(openSnapshot(EVENT_ID, sync.snapshot_ciphertext), {
      kind: 'json',
      text: JSON.stringify({
        success: true,
        data: { amount: '0.07' },
        payment_url: 'https://pay.example',
      }),
    })
    assert.equal(sync.snapshot_size, Buffer.byteLength(sync.snapshot_ciphertext))

    const reply = events.find((event) => event.kind === 'merchant_notification.response')
    assert.match(reply.id, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/)
    assert.equal(reply.source, 'merchant_webhook')
    assert.equal(reply.direction, 'inbound')
    assert.deepEqual(openSnapshot(reply.id, reply.snapshot_ciphertext), {
      kind: 'text',
      text: 'OK\tthanks\n',
    })
    assert.equal(reply.event_id, 'evt_1-A')
    assert.equal(reply.attempt_number, 1_000_000)
    assert.equal(reply.duration_ms, 86_400_000)
    assert.equal(reply.delivery_state, 'exhausted')

    const purged = events.find((event) => event.kind === 'merchant_notification.delivery_attempt')
    assert.isNull(purged.snapshot_ciphertext)
    assert.isNull(purged.snapshot_size)
    assert.equal(purged.purged_at.toISOString(), '2026-04-01T00:00:00.000Z')
  })

  test('retain_until defaults to captured_at plus HISTORY_RETENTION_MONTHS (12)', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const event = eventOf({ captured_at: '2026-03-01T10:00:00.250+08:00' })
    await importLines([transactionLine(merchant.id, { events: [event] })])
    const restore = overrideEnv({ HISTORY_RETENTION_MONTHS: 3 })
    try {
      await importLines([
        transactionLine(merchant.id, { merchant_transaction_id: 'ORD-2', events: [event] }),
      ])
    } finally {
      restore()
    }
    const rows = await db.rawQuery(
      `SELECT t.merchant_transaction_id AS ref,
              to_char(e.retain_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS until
       FROM exchange_evidence e JOIN transactions t ON t.id = e.transaction_id ORDER BY ref`
    )
    assert.deepEqual(
      rows.rows.map((row: { until: string }) => row.until),
      ['2027-03-01T02:00:00.250', '2026-06-01T02:00:00.250']
    )
  })
})

test.group('collections:import › idempotency', (group) => {
  group.each.setup(() => resetState())

  test('importing the same file twice writes nothing the second time', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const lines = [
      transactionLine(merchant.id, {
        events: [eventOf({ body: { ok: true } }), eventOf({ kind: 'internal', body: [1, 2] })],
      }),
      transactionLine(merchant.id, { merchant_transaction_id: 'ORD-2', environment: 'test' }),
    ]
    const first = await importLines(lines)
    assert.include(first, { transactions_created: 2, events_created: 3, events_unchanged: 0 })
    const before = await db
      .from('exchange_evidence')
      .orderBy('id')
      .select('id', 'snapshot_ciphertext')

    const second = await importLines(lines)
    assert.include(second, {
      transactions: 2,
      events: 3,
      transactions_created: 0,
      transactions_updated: 0,
      transactions_unchanged: 2,
      events_created: 0,
      events_unchanged: 3,
    })
    assert.lengthOf(await transactionsOf(merchant.id), 2)
    // Events given without an id get the same derived id again: no copies.
    assert.deepEqual(
      await db.from('exchange_evidence').orderBy('id').select('id', 'snapshot_ciphertext'),
      before
    )
  })

  test('a re-import updates a transaction unless the stored row is newer', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    await importLines([transactionLine(merchant.id, { payment_status: 'PENDING' })])
    const newer = await importLines([
      transactionLine(merchant.id, {
        payment_status: 'PAID',
        amount: '1499.99',
        updated_at: '2026-03-01T11:00:00+08:00',
      }),
    ])
    assert.equal(newer.transactions_updated, 1)
    let [row] = await transactionsOf(merchant.id)
    assert.equal(row.status, 'PAID')
    assert.equal(row.amount, '1499.99')

    const older = await importLines([
      transactionLine(merchant.id, {
        payment_status: 'REJECTED',
        updated_at: '2026-03-01T10:30:00+08:00',
      }),
    ])
    assert.equal(older.transactions_unchanged, 1)
    ;[row] = await transactionsOf(merchant.id)
    assert.equal(row.status, 'PAID')
  })

  test('stored evidence is never changed by a re-import, a purged one included', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const event = eventOf({ id: EVENT_ID, body: { acknowledged: true }, legal_hold: false })
    await importLines([transactionLine(merchant.id, { events: [event] })])
    await db.from('exchange_evidence').update({
      snapshot_ciphertext: null,
      snapshot_size: null,
      purged_at: new Date(),
    })
    const again = await importLines([
      transactionLine(merchant.id, { events: [{ ...event, legal_hold: true }] }),
    ])
    assert.equal(again.events_unchanged, 1)
    const row = await db.from('exchange_evidence').where('id', EVENT_ID).firstOrFail()
    assert.isNull(row.snapshot_ciphertext)
    assert.isNotNull(row.purged_at)
    assert.isFalse(row.legal_hold)
  })

  test('the same reference twice in one file keeps the newer line', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const result = await importLines([
      transactionLine(merchant.id, {
        payment_status: 'PENDING',
        updated_at: '2026-03-01T10:05:00Z',
      }),
      transactionLine(merchant.id, { payment_status: 'PAID', updated_at: '2026-03-01T10:06:00Z' }),
      transactionLine(merchant.id, {
        payment_status: 'REJECTED',
        updated_at: '2026-03-01T10:01:00Z',
      }),
    ])
    assert.equal(result.transactions, 3)
    const rows = await transactionsOf(merchant.id)
    assert.lengthOf(rows, 1)
    assert.equal(rows[0].status, 'PAID')
    assert.equal(await evidenceCount(), 1)
  })
})

/** [what is wrong, how to break a good line, what the message must name] */
const BAD_LINES: Array<[string, (line: Line) => Line | string, RegExp]> = [
  ['not JSON', () => '{"merchant_id": 1,', /not valid JSON/],
  ['not an object', () => '[1, 2]', /must be a JSON object/],
  ['an unknown field', (l) => ({ ...l, fee: '1.00' }), /fee is not a field/],
  ['a __proto__ key', () => '{"__proto__": {"x": 1}}', /__proto__ is not a field/],
  ['a missing field', (l) => ({ ...l, archived: undefined }), /archived is required/],
  ['merchant_id as a string', (l) => ({ ...l, merchant_id: '1' }), /merchant_id/],
  [
    'an unknown merchant',
    (l) => ({ ...l, merchant_id: 999_999 }),
    /merchant 999999 does not exist/,
  ],
  [
    'environment in capitals',
    (l) => ({ ...l, environment: 'LIVE' }),
    /environment must be one of test, live/,
  ],
  ['an empty reference', (l) => ({ ...l, merchant_transaction_id: '' }), /merchant_transaction_id/],
  [
    'a 101-character reference',
    (l) => ({ ...l, merchant_transaction_id: 'x'.repeat(101) }),
    /at most 100/,
  ],
  [
    'a reference with a control character',
    (l) => ({ ...l, merchant_transaction_id: 'A\u0001' }),
    /control characters/,
  ],
  ['amount as a number', (l) => ({ ...l, amount: 1500 }), /amount must be a decimal string/],
  ['amount with one decimal', (l) => ({ ...l, amount: '1500.0' }), /amount/],
  ['a negative amount', (l) => ({ ...l, amount: '-1.00' }), /amount/],
  ['an amount over numeric(14,2)', (l) => ({ ...l, amount: '1234567890123.00' }), /amount/],
  ['currency in lowercase', (l) => ({ ...l, currency: 'php' }), /currency must be three uppercase/],
  [
    'currency outside the catalogue',
    (l) => ({ ...l, currency: 'QQQ' }),
    /QQQ is not in the catalogue/,
  ],
  ['an empty payment_status', (l) => ({ ...l, payment_status: '' }), /payment_status/],
  ['archived as a string', (l) => ({ ...l, archived: 'no' }), /archived must be a boolean/],
  ['payment_brand missing a value', (l) => ({ ...l, payment_brand: null }), /payment_brand/],
  [
    'created_at without an offset',
    (l) => ({ ...l, created_at: '2026-03-01T10:00:00' }),
    /created_at must be a timestamp/,
  ],
  [
    'created_at on an impossible date',
    (l) => ({ ...l, created_at: '2026-02-30T10:00:00Z' }),
    /created_at/,
  ],
  [
    'updated_at with a +15:00 offset',
    (l) => ({ ...l, updated_at: '2026-03-01T10:00:00+15:00' }),
    /updated_at/,
  ],
  [
    'created_at with seven fractional digits',
    (l) => ({ ...l, created_at: '2026-03-01T10:00:00.1234567Z' }),
    /created_at/,
  ],
  ['events not an array', (l) => ({ ...l, events: {} }), /events must be an array/],
  [
    'an event that is not an object',
    (l) => ({ ...l, events: ['x'] }),
    /events\[0\] must be an object/,
  ],
  [
    'an unknown event field',
    (l) => ({ ...l, events: [eventOf({ headers: {} })] }),
    /events\[0\]\.headers is not a field/,
  ],
  [
    'an unknown kind',
    (l) => ({ ...l, events: [eventOf({ kind: 'merchant_request' })] }),
    /events\[0\]\.kind must be one of/,
  ],
  [
    'a missing captured_at',
    (l) => ({ ...l, events: [eventOf({ captured_at: undefined })] }),
    /events\[0\]\.captured_at is required/,
  ],
  [
    'schema_version 0',
    (l) => ({ ...l, events: [eventOf({ schema_version: 0 })] }),
    /schema_version/,
  ],
  [
    'a capture_format with spaces',
    (l) => ({ ...l, events: [eventOf({ capture_format: 'a b' })] }),
    /capture_format/,
  ],
  [
    'a lowercase ULID',
    (l) => ({ ...l, events: [eventOf({ id: EVENT_ID.toLowerCase() })] }),
    /id must be a 26-character uppercase ULID/,
  ],
  ['an id that is not a ULID', (l) => ({ ...l, events: [eventOf({ id: 'evt-1' })] }), /ULID/],
  [
    'body and body_text together',
    (l) => ({ ...l, events: [eventOf({ body: {}, body_text: 'ok' })] }),
    /both body and body_text/,
  ],
  [
    'body_text not a string',
    (l) => ({ ...l, events: [eventOf({ body_text: 12 })] }),
    /body_text must be a string/,
  ],
  [
    'a purged event with a body',
    (l) => ({ ...l, events: [eventOf({ purged_at: '2026-04-01T00:00:00Z', body: {} })] }),
    /purged/,
  ],
  [
    'an unknown body_capture_status',
    (l) => ({ ...l, events: [eventOf({ body_capture_status: 'truncated' })] }),
    /body_capture_status/,
  ],
  [
    'a synchronous-only status on a webhook reply',
    (l) => ({ ...l, events: [eventOf({ body_capture_status: 'omitted_non_json' })] }),
    /body_capture_status/,
  ],
  [
    'an event_id with a space',
    (l) => ({ ...l, events: [eventOf({ event_id: 'evt 1' })] }),
    /event_id/,
  ],
  [
    'a 129-character event_id',
    (l) => ({ ...l, events: [eventOf({ event_id: 'e'.repeat(129) })] }),
    /event_id/,
  ],
  [
    'attempt_number 0',
    (l) => ({ ...l, events: [eventOf({ attempt_number: 0 })] }),
    /attempt_number must be an integer from 1 to 1000000/,
  ],
  [
    'attempt_number 1,000,001',
    (l) => ({ ...l, events: [eventOf({ attempt_number: 1_000_001 })] }),
    /attempt_number/,
  ],
  [
    'attempt_number 1.5',
    (l) => ({ ...l, events: [eventOf({ attempt_number: 1.5 })] }),
    /attempt_number/,
  ],
  [
    'http_status 99',
    (l) => ({ ...l, events: [eventOf({ http_status: 99 })] }),
    /http_status must be an integer from 100 to 599/,
  ],
  ['http_status 600', (l) => ({ ...l, events: [eventOf({ http_status: 600 })] }), /http_status/],
  [
    'an unknown delivery_state',
    (l) => ({ ...l, events: [eventOf({ delivery_state: 'sent' })] }),
    /delivery_state must be one of/,
  ],
  [
    'duration_ms -1',
    (l) => ({ ...l, events: [eventOf({ duration_ms: -1 })] }),
    /duration_ms must be an integer from 0 to 86400000/,
  ],
  [
    'duration_ms over a day',
    (l) => ({ ...l, events: [eventOf({ duration_ms: 86_400_001 })] }),
    /duration_ms/,
  ],
  [
    'is_repeated_request as a string',
    (l) => ({ ...l, events: [eventOf({ is_repeated_request: 'yes' })] }),
    /is_repeated_request/,
  ],
  [
    'legal_hold null',
    (l) => ({ ...l, events: [eventOf({ legal_hold: null })] }),
    /legal_hold must be a boolean/,
  ],
  [
    'a bad retain_until',
    (l) => ({ ...l, events: [eventOf({ retain_until: '2027-03-01' })] }),
    /retain_until/,
  ],
  [
    'a bad purged_at',
    (l) => ({ ...l, events: [eventOf({ purged_at: 'yesterday' })] }),
    /purged_at/,
  ],
  [
    'the same event id twice on a line',
    (l) => ({ ...l, events: [eventOf({ id: EVENT_ID }), eventOf({ id: EVENT_ID })] }),
    /appears twice/,
  ],
]

test.group('collections:import › a bad line', (group) => {
  group.each.setup(() => resetState())

  test('{reason} is refused with its line number; the line before it is kept')
    .with(BAD_LINES.map(([reason, breakLine, message]) => ({ reason, breakLine, message })))
    .run(async ({ assert }, { breakLine, message }) => {
      const merchant = await MerchantFactory.create()
      const good = (reference: string) =>
        transactionLine(merchant.id, { merchant_transaction_id: reference })
      const bad = breakLine(good('ORD-BAD'))
      const error = await failureOf(
        importLines([good('ORD-1'), bad, good('ORD-3')], { batchLines: 2 })
      )
      assert.equal(error.line, 2)
      assert.match(error.message, /^line 2: /)
      assert.match(error.message, message)
      assert.deepEqual(await referencesOf(merchant.id), ['ORD-1'])
      assert.equal(await evidenceCount(), 1)
    })

  /** [field, how to set it on a good line] for every timestamp of a line. */
  const TIMESTAMP_FIELDS: Array<[string, (line: Line, value: string) => Line]> = [
    ['created_at', (l, value) => ({ ...l, created_at: value })],
    ['updated_at', (l, value) => ({ ...l, updated_at: value })],
    ['events[0].captured_at', (l, value) => ({ ...l, events: [eventOf({ captured_at: value })] })],
    [
      'events[0].retain_until',
      (l, value) => ({ ...l, events: [eventOf({ retain_until: value })] }),
    ],
    ['events[0].purged_at', (l, value) => ({ ...l, events: [eventOf({ purged_at: value })] })],
  ]
  const OUTSIDE_UTC_YEARS = [
    '0001-01-01T00:00:00+14:00', // 0000-12-31T10:00:00Z: 1 BC
    '0001-01-01T13:59:59.999999+14:00', // one microsecond before 0001-01-01T00:00:00Z
    '9999-12-31T23:59:59.999999-14:00', // 10000-01-01T13:59:59.999999Z
    '9999-12-31T10:00:00-14:00', // 10000-01-01T00:00:00Z
  ]

  test('a timestamp outside UTC years 0001-9999 is a bad line: {field} = {value}')
    .with(
      TIMESTAMP_FIELDS.flatMap(([field, set]) =>
        OUTSIDE_UTC_YEARS.map((value) => ({ field, set, value }))
      )
    )
    .run(async ({ assert }, { field, set, value }) => {
      const merchant = await MerchantFactory.create()
      const good = (reference: string) =>
        transactionLine(merchant.id, { merchant_transaction_id: reference })
      const error = await failureOf(
        importLines([good('ORD-1'), set(good('ORD-BAD'), value), good('ORD-3')], {
          batchLines: 2,
        })
      )
      assert.equal(error.line, 2)
      assert.include(
        error.message,
        `line 2: ${field} must be an instant from 0001-01-01T00:00:00Z to ` +
          '9999-12-31T23:59:59.999999Z (UTC years 0001-9999)'
      )
      assert.notInclude(error.message, value)
      assert.deepEqual(await referencesOf(merchant.id), ['ORD-1'])
      assert.equal(await evidenceCount(), 1)
    })

  test('an event body is stored exactly as given: digits, exponents, spacing and repeated keys', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const bodies = [
      '{ "success": true, "n": 12345678901234567890, "e": 1e400, "d": 1.10, "z": -0,\t "k": 1, "k": 2 }',
      // Nested far past any recursion limit: kept, and refused only when read (depth 64).
      '['.repeat(10_000) + ']'.repeat(10_000),
    ]
    const lines = bodies.map((body, index) =>
      JSON.stringify(
        transactionLine(merchant.id, {
          merchant_transaction_id: `ORD-${index}`,
          events: [eventOf({ body: '__BODY__' })],
        })
      ).replace('"__BODY__"', body)
    )
    await importLines(lines)
    const rows = await db
      .from('exchange_evidence')
      .join('transactions', 'transactions.id', 'exchange_evidence.transaction_id')
      .orderBy('transactions.merchant_transaction_id')
      .select('exchange_evidence.id', 'exchange_evidence.snapshot_ciphertext')
    assert.deepEqual(
      rows.map((row) => openSnapshot(row.id, row.snapshot_ciphertext)),
      bodies.map((text) => ({ kind: 'json', text }))
    )
  })

  test('every run is audited: a success with its counts, a bad line as a failure with what it wrote', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const good = (reference: string) =>
      transactionLine(merchant.id, { merchant_transaction_id: reference })
    await importLines([good('ORD-1')])
    await failureOf(importLines([good('ORD-2'), '{"not": "a transaction"}'], { batchLines: 1 }))
    const records = await db
      .from('audit_logs')
      .where('action', 'collections.import')
      .orderBy('id')
      .select('outcome', 'reason', 'metadata')
    assert.deepEqual(
      records.map((record) => [record.outcome, record.reason]),
      [
        ['success', null],
        ['failure', 'bad_line'],
      ]
    )
    assert.include(records[0].metadata, { transactions: 1, transactions_created: 1 })
    assert.include(records[1].metadata, { transactions: 1, transactions_created: 1, bad_line: 2 })
  })

  test('a lone UTF-16 surrogate in a text field is a bad line (PostgreSQL would store U+FFFD)', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    for (const [field, value] of [
      ['merchant_transaction_id', 'LS-\\ud800'],
      ['payment_brand', '\\udfffbrand'],
    ]) {
      const line = JSON.stringify(
        transactionLine(merchant.id, { merchant_transaction_id: 'OK', [field]: '__VALUE__' })
      ).replace('__VALUE__', value)
      const error = await failureOf(importLines([line]))
      assert.equal(error.line, 1)
      assert.include(error.message, `${field} must not contain a lone UTF-16 surrogate`)
    }
    assert.deepEqual(await referencesOf(merchant.id), [])
  })

  test('timestamps on the edges of UTC years 0001-9999 are imported', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    await importLines([
      transactionLine(merchant.id, {
        created_at: '0001-01-01T14:00:00+14:00',
        updated_at: '9999-12-31T09:59:59.999999-14:00',
        events: [
          eventOf({
            captured_at: '0001-01-01T00:00:00Z',
            retain_until: '9999-12-31T23:59:59.999999Z',
            purged_at: '0001-01-01T00:00:00.000001Z',
          }),
        ],
      }),
    ])
    const utc = (column: string) =>
      `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US BC')`
    const rows = await db.rawQuery(
      `SELECT ${utc('t.created_at')} AS created, ${utc('t.updated_at')} AS updated,
              ${utc('e.captured_at')} AS captured, ${utc('e.retain_until')} AS until,
              ${utc('e.purged_at')} AS purged
       FROM transactions t JOIN exchange_evidence e ON e.transaction_id = t.id
       WHERE t.merchant_id = ?`,
      [merchant.id]
    )
    assert.deepEqual(rows.rows, [
      {
        created: '0001-01-01T00:00:00.000000 AD',
        updated: '9999-12-31T23:59:59.999999 AD',
        captured: '0001-01-01T00:00:00.000000 AD',
        until: '9999-12-31T23:59:59.999999 AD',
        purged: '0001-01-01T00:00:00.000001 AD',
      },
    ])
  })

  test('a default retain_until past year 9999 is the last instant of 9999', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    await importLines([
      transactionLine(merchant.id, {
        events: [eventOf({ captured_at: '9999-06-01T00:00:00Z', retain_until: undefined })],
      }),
    ])
    const rows = await db.rawQuery(
      `SELECT to_char(e.retain_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US BC') AS until
       FROM exchange_evidence e WHERE e.merchant_id = ?`,
      [merchant.id]
    )
    assert.deepEqual(rows.rows, [{ until: '9999-12-31T23:59:59.999999 AD' }])
  })

  test('invalid UTF-8 is refused with its line number', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const good = Buffer.from(JSON.stringify(transactionLine(merchant.id)) + '\n')
    const bad = Buffer.concat([
      Buffer.from('{"merchant_id": "'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\n'),
    ])
    const error = await failureOf(importJsonLines(Readable.from([good, bad])))
    assert.equal(error.line, 2)
    assert.match(error.message, /not valid UTF-8/)
    assert.lengthOf(await transactionsOf(merchant.id), 1)
  })

  test('lines before a bad one in later batches are all kept, none after it', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const lines: Array<Line | string> = []
    for (let index = 1; index <= 9; index++) {
      lines.push(transactionLine(merchant.id, { merchant_transaction_id: `ORD-${index}` }))
    }
    lines[6] = { ...(lines[6] as Line), amount: 12 }
    const error = await failureOf(importLines(lines, { batchLines: 2 }))
    assert.equal(error.line, 7)
    assert.match(error.message, /lines before 7 were imported; nothing from line 7 on/)
    const references = await referencesOf(merchant.id)
    assert.deepEqual(references, ['ORD-1', 'ORD-2', 'ORD-3', 'ORD-4', 'ORD-5', 'ORD-6'])
  })

  test('an event id already stored for another transaction is refused with its line', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    await importLines([transactionLine(merchant.id, { events: [eventOf({ id: EVENT_ID })] })])
    const error = await failureOf(
      importLines([
        transactionLine(merchant.id, { merchant_transaction_id: 'ORD-2' }),
        transactionLine(merchant.id, {
          merchant_transaction_id: 'ORD-3',
          events: [eventOf({ id: EVENT_ID })],
        }),
      ])
    )
    assert.equal(error.line, 2)
    assert.match(error.message, new RegExp(`${EVENT_ID} is already stored for another transaction`))
    const references = await referencesOf(merchant.id)
    assert.deepEqual(references, ['ORD-1001', 'ORD-2'])
    const stored = await db.from('exchange_evidence').where('id', EVENT_ID).firstOrFail()
    const original = await db
      .from('transactions')
      .where('merchant_transaction_id', 'ORD-1001')
      .firstOrFail()
    assert.equal(stored.transaction_id, original.id)
  })
})

test.group('collections:import › the command', (group) => {
  group.each.setup(() => resetState())

  test('reads standard input for "-" and prints the counts as one JSON object', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const text = jsonLinesOf([
      transactionLine(merchant.id),
      transactionLine(merchant.id, { merchant_transaction_id: 'ORD-2', events: [] }),
    ])
    const result = await runCommand(CollectionsImport, ['-'], (command) => {
      command.stdin = Readable.from([Buffer.from(text)])
    })
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    assert.include(result.json(), { transactions: 2, events: 1, transactions_created: 2 })
    assert.deepEqual(result.stderr, [])
  })

  test('reads a file and says which line is bad with a non-zero exit', async ({
    assert,
    cleanup,
  }) => {
    const merchant = await MerchantFactory.create()
    const folder = await mkdtemp(join(tmpdir(), 'collections-import-'))
    cleanup(() => rm(folder, { recursive: true, force: true }))
    const file = join(folder, 'export.jsonl')
    await writeFile(file, jsonLinesOf([transactionLine(merchant.id), '', '{"merchant_id": 1}']))

    const result = await runCommand(CollectionsImport, [file])
    assert.equal(result.exitCode, 1)
    assert.deepEqual(result.stdout, [])
    assert.match(result.stderr.join('\n'), /line 3: environment is required/)
    assert.lengthOf(await transactionsOf(merchant.id), 1)
  })

  test('on a terminal, progress (lines, rows/s, bytes read) goes to standard error', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const terminal = terminalOutput()
    const result = await runCommand(CollectionsImport, ['-'], (command) => {
      command.stdin = Readable.from([Buffer.from(jsonLinesOf([transactionLine(merchant.id)]))])
      command.progressOutput = terminal.stream
    })
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    assert.lengthOf(result.stdout, 1)
    assert.match(terminal.text(), /1 lines {2}\d[\d,]* rows\/s {2}[\d.]+ (B|KiB) read/)
  })

  test('an input that fails while being read stops the import with its error', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const input = Readable.from(
      (function* () {
        yield Buffer.from(JSON.stringify(transactionLine(merchant.id)) + '\n')
        throw new Error('connection reset while reading the export')
      })()
    )
    await assert.rejects(() => importJsonLines(input), /connection reset/)
  })

  test('a missing file is a clear error', async ({ assert }) => {
    const result = await runCommand(CollectionsImport, ['/nonexistent/export.jsonl'])
    assert.equal(result.exitCode, 1)
    assert.match(result.stderr.join('\n'), /no such file/)
  })

  test('a directory is named a directory, not a missing file', async ({ assert }) => {
    const result = await runCommand(CollectionsImport, [tmpdir()])
    assert.equal(result.exitCode, 1)
    assert.deepEqual(result.stdout, [])
    assert.lengthOf(result.stderr, 1)
    assert.match(result.stderr[0], /: is a directory, not a file$/)
    assert.notMatch(result.stderr[0], /no such file/)
  })

  test('a bad first line says nothing was imported (not "lines before 1")', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const result = await runCommand(CollectionsImport, ['-'], (command) => {
      command.stdin = Readable.from([
        Buffer.from(jsonLinesOf(['{not json', transactionLine(merchant.id)]) + '\n'),
      ])
    })
    assert.equal(result.exitCode, 1)
    assert.lengthOf(result.stderr, 1)
    assert.match(result.stderr[0], /line 1\b.*\(nothing was imported\)$/)
    assert.notInclude(result.stderr[0], 'lines before 1')
    assert.lengthOf(await db.from('transactions'), 0)
  })
})

test.group('collections:import › memory', (group) => {
  group.each.setup(() => resetState())

  test('a 100,000-line file is imported in bounded memory', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const LINES = 100_000
    // About 1.6 KB a line (160 MB in all): holding the input, or its rows, would show.
    const padding = 'x'.repeat(1_200)
    let produced = 0
    const input = Readable.from(
      (function* () {
        for (let index = 0; index < LINES; index++) {
          produced += 1
          yield Buffer.from(
            JSON.stringify(
              transactionLine(merchant.id, {
                merchant_transaction_id: `MEM-${index}`,
                events: [eventOf({ body_text: padding })],
              })
            ) + '\n'
          )
        }
      })()
    )
    // Heap still in use after a full collection: what the import keeps, not garbage
    // the collector has yet to reclaim.
    v8.setFlagsFromString('--expose-gc')
    const collectGarbage = vm.runInNewContext('gc') as () => void
    const retainedHeap = () => {
      collectGarbage()
      return process.memoryUsage().heapUsed
    }
    const baseline = retainedHeap()
    let peak = baseline
    let reports = 0
    const result = await importJsonLines(input, {
      onProgress: () => {
        if (++reports % 10 === 0) peak = Math.max(peak, retainedHeap())
      },
    })
    assert.equal(produced, LINES)
    assert.equal(result.transactions, LINES)
    assert.equal(result.events, LINES)
    assert.isAbove(result.bytes, 150 * 1024 * 1024)
    const growthMiB = (peak - baseline) / 1024 / 1024
    assert.isAbove(reports, 90)
    assert.isBelow(growthMiB, 48, `retained heap grew by ${growthMiB.toFixed(1)} MiB`)
    const row = await db.from('transactions').count('* as total').first()
    assert.equal(Number(row?.total), LINES)
  }).timeout(600_000)
})
