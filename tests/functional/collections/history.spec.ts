import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import { ulid } from 'ulid'
import { resetState } from '#tests/helpers/database'
import { signedInMember, teammate, type Session } from '#tests/helpers/portal'
import { liftLimit } from '#tests/helpers/limits'
import {
  historyAuditRows,
  importTransactions,
  merchantRequest,
  type ImportEvent,
} from '#tests/helpers/collections'
import { route } from '#tests/helpers/routes'
import { reprojectHistory } from '#services/collections/history/reproject_history'

const readHistory = (
  client: ApiClient,
  session: Session,
  id: number,
  qs: Record<string, unknown> = {}
) =>
  client
    .get(route('collections.history.index', { transaction: id }))
    .header('Authorization', session.bearer)
    .qs({ environment: 'live', ...qs })

const readItem = (client: ApiClient, session: Session, id: number, historyId: string, qs = {}) =>
  client
    .get(route('collections.history.show', { transaction: id, history: historyId }))
    .header('Authorization', session.bearer)
    .qs({ environment: 'live', ...qs })

async function oneTransaction(session: Session, events: ImportEvent[], reference = 'ORD-1001') {
  const [stored] = await importTransactions([
    {
      merchant_id: session.merchant.id,
      environment: 'live',
      merchant_transaction_id: reference,
      events,
    },
  ])
  return stored
}

/** Every kind once, as a hosted-checkout exchange records them. */
function fullExchange(reference: string): ImportEvent[] {
  return [
    merchantRequest(reference, '2026-03-01T10:00:00.120+08:00'),
    {
      kind: 'provider.request',
      captured_at: '2026-03-01T10:00:00.200+08:00',
      body: { provider_secret: 'sk_live_x', card: '4111111111111111' },
    },
    {
      kind: 'merchant_response.synchronous',
      captured_at: '2026-03-01T10:00:00.300+08:00',
      is_repeated_request: false,
      http_status: 201,
      body: {
        success: true,
        data: {
          merchant_transaction_id: reference,
          amount: '1500.00',
          payment_status: 'PENDING',
          is_card_payment: false,
          timestamp: '2026-03-01T10:00:00.300+08:00',
          payment_url: 'https://pay.example/checkout/abc',
        },
      },
    },
    {
      kind: 'internal',
      captured_at: '2026-03-01T10:00:01+08:00',
      body: { note: 'internal' },
    },
    {
      kind: 'merchant_notification.queued',
      captured_at: '2026-03-01T10:05:00+08:00',
      event_id: 'evt_01',
      delivery_state: 'delivered',
      body: {
        merchant_transaction_id: reference,
        amount: '1500.00',
        currency: 'PHP',
        payment_brand: 'gcash',
        payment_status: 'PAID',
        channel: 2,
        provider_reference: 'PRV-9',
      },
    },
    {
      kind: 'merchant_notification.response',
      captured_at: '2026-03-01T10:05:01+08:00',
      event_id: 'evt_01',
      attempt_number: 1,
      http_status: 200,
      delivery_state: 'delivered',
      duration_ms: 140,
      body: { ok: true, message: 'thanks john@example.com' },
    },
  ]
}

test.group('GET /portal/collections/transactions/{transaction}/history', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => liftLimit('api'))

  test('only permitted kinds, chronological, mapped, projected; both roles', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const developer = await teammate(admin, 'developer')
    const stored = await oneTransaction(admin, fullExchange('ORD-1001'))
    const [request, , synchronous, , queued, reply] = stored.events
    for (const member of [admin, developer]) {
      const response = await readHistory(client, member, stored.id)
      response.assertStatus(200)
      response.assertHeader('cache-control', 'no-store')
      const body = response.body()
      assert.equal(body.message, 'Success')
      assert.deepEqual(
        body.data.map((item: { id: string }) => item.id),
        [request, synchronous, queued, reply]
      )
      assert.deepEqual(body.data[0], {
        id: request,
        transaction_id: stored.id,
        environment: 'live',
        event_type: 'merchant_request',
        direction: 'merchant_to_dlt',
        captured_at: '2026-03-01T02:00:00.120000Z',
        capture_format: 'sanitized_snapshot',
        capture_status: 'available',
        event_id: null,
        attempt_number: null,
        http_status: null,
        delivery: null,
        response: null,
        payload: {
          merchant_transaction_id: 'ORD-1001',
          payment_brand: 'gcash',
          currency: 'PHP',
          amount: '1500.00',
          channel: 2,
          is_card_payment: false,
        },
        omissions: [
          { field_path: '*', reason_code: 'payment_url_excluded' },
          { field_path: '*', reason_code: 'portal_field_allowlist' },
        ],
        retain_until: '2027-03-01T02:00:00.120000Z',
        purged_at: null,
      })
      assert.deepEqual(body.data[1].response, {
        is_repeated_request: false,
        capture_stage: 'prepared_for_return',
        body_capture_status: 'captured_sanitized',
      })
      assert.equal(body.data[1].event_type, 'dlt_response')
      assert.equal(body.data[1].direction, 'dlt_to_merchant')
      assert.equal(body.data[1].http_status, 201)
      assert.deepEqual(body.data[1].payload, {
        success: true,
        data: {
          merchant_transaction_id: 'ORD-1001',
          amount: '1500.00',
          payment_status: 'PENDING',
          is_card_payment: false,
          timestamp: '2026-03-01T10:00:00.300+08:00',
        },
      })
      assert.deepEqual(body.data[1].omissions, [
        { field_path: 'data.*', reason_code: 'payment_url_excluded' },
      ])
      assert.equal(body.data[2].event_type, 'merchant_webhook_request')
      assert.equal(body.data[2].direction, 'dlt_to_merchant')
      assert.equal(body.data[2].event_id, 'evt_01')
      assert.deepEqual(body.data[2].delivery, { state: 'delivered' })
      assert.notProperty(body.data[2].payload, 'channel')
      assert.deepEqual(body.data[2].omissions, [
        { field_path: '*', reason_code: 'portal_field_allowlist' },
      ])
      assert.equal(body.data[3].event_type, 'merchant_webhook_response')
      assert.equal(body.data[3].direction, 'merchant_to_dlt')
      assert.equal(body.data[3].attempt_number, 1)
      assert.deepEqual(body.data[3].delivery, {
        state: 'delivered',
        duration_ms: 140,
        body_capture_status: 'captured_sanitized',
      })
      assert.deepEqual(body.data[3].payload, { ok: true })
      assert.deepEqual(body.data[3].omissions, [
        { field_path: '*', reason_code: 'merchant_response_field_allowlist' },
      ])
      assert.deepEqual(body.meta, {
        current_page: 1,
        per_page: 25,
        total: 4,
        last_page: 1,
        coverage: {
          merchant_request: 'captured',
          dlt_response: 'captured',
          merchant_webhook_request: 'captured',
          merchant_webhook_response: 'captured',
        },
      })
      const text = JSON.stringify(body)
      for (const secret of [
        'shop.example',
        'a@b.c',
        'sk_live_x',
        '4111111111111111',
        'pay.example',
        'PRV-9',
        'john@example.com',
        'internal',
      ]) {
        assert.notInclude(text, secret)
      }
    }
  })

  test('same captured_at: ordered by ULID; pages keep the coverage of the whole history', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const at = '2026-03-01T10:00:00+08:00'
    const ids = [ulid(), ulid(), ulid()].sort()
    const stored = await oneTransaction(admin, [
      { ...merchantRequest('ORD', at), id: ids[2] },
      {
        kind: 'merchant_notification.response',
        id: ids[0],
        captured_at: at,
        body_capture_status: 'no_response',
        attempt_number: 1,
      },
      {
        kind: 'merchant_notification.response',
        id: ids[1],
        captured_at: at,
        body_text: 'OK',
        content_type: 'text/plain',
        attempt_number: 2,
      },
      {
        kind: 'merchant_response.synchronous',
        captured_at: '2026-03-01T09:59:59+08:00',
        purged_at: '2026-03-05T00:00:00Z',
      },
    ])
    const first = await readHistory(client, admin, stored.id, { per_page: 2 })
    assert.deepEqual(
      first.body().data.map((item: { id: string }) => item.id),
      [stored.events[3], ids[0]]
    )
    const second = await readHistory(client, admin, stored.id, { per_page: 2, page: 2 })
    assert.deepEqual(
      second.body().data.map((item: { id: string }) => item.id),
      [ids[1], ids[2]]
    )
    const beyond = await readHistory(client, admin, stored.id, { per_page: 2, page: 3 })
    assert.deepEqual(beyond.body().data, [])
    const coverage = {
      merchant_request: 'captured',
      dlt_response: 'purged',
      merchant_webhook_request: 'not_captured',
      merchant_webhook_response: 'captured',
    }
    for (const page of [first, second, beyond]) {
      assert.deepEqual(page.body().meta.coverage, coverage)
      assert.equal(page.body().meta.total, 4)
      assert.equal(page.body().meta.last_page, 2)
    }
    assert.equal(first.body().data[1].capture_status, 'unavailable')
    assert.deepEqual(first.body().data[1].delivery, { body_capture_status: 'no_response' })
    assert.deepEqual(second.body().data[0].payload, { text: 'ok' })
  })

  test('purged items: payload null, purged_at set, capture_status purged', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, [
      {
        ...merchantRequest('ORD', '2026-03-01T00:00:00Z'),
        body: undefined,
        purged_at: '2027-03-02T00:00:00Z',
      },
    ])
    const response = await readHistory(client, admin, stored.id)
    const [item] = response.body().data
    assert.equal(item.capture_status, 'purged')
    assert.isNull(item.payload)
    assert.equal(item.purged_at, '2027-03-02T00:00:00.000000Z')
    assert.equal(response.body().meta.coverage.merchant_request, 'purged')
  })

  test('older delivery attempts: webhook request, legacy format, no payload, omitted', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, [
      {
        kind: 'merchant_notification.delivery_attempt',
        captured_at: '2025-01-01T00:00:00Z',
        capture_format: 'sanitized_snapshot',
        attempt_number: 3,
        http_status: 500,
        delivery_state: 'failed',
        duration_ms: 3000,
        body: { merchant_transaction_id: 'ORD', amount: '1.00' },
      },
    ])
    const history = await readHistory(client, admin, stored.id)
    const [item] = history.body().data
    assert.equal(item.event_type, 'merchant_webhook_request')
    assert.equal(item.direction, 'dlt_to_merchant')
    assert.equal(item.capture_format, 'legacy_sanitized_snapshot')
    assert.equal(item.capture_status, 'omitted')
    assert.isNull(item.payload)
    assert.deepEqual(item.omissions, [
      { field_path: 'body', reason_code: 'legacy_body_unverified' },
    ])
    assert.deepEqual(item.delivery, { state: 'failed', duration_ms: 3000 })
    assert.equal(item.attempt_number, 3)
    assert.equal(item.http_status, 500)
  })

  test('a corrupt stored projection marks only its own item unavailable', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, [
      merchantRequest('ORD', '2026-03-01T00:00:00Z'),
      {
        kind: 'merchant_notification.response',
        captured_at: '2026-03-01T00:01:00Z',
        body: { ok: true },
      },
    ])
    await db
      .from('exchange_evidence')
      .where('id', stored.events[0])
      .update({ projection_ciphertext: 'not-a-ciphertext' })
    const response = await readHistory(client, admin, stored.id)
    response.assertStatus(200)
    const [corrupt, intact] = response.body().data
    assert.equal(corrupt.capture_status, 'unavailable')
    assert.isNull(corrupt.payload)
    assert.deepEqual(corrupt.omissions, [
      { field_path: 'body', reason_code: 'snapshot_unreadable' },
    ])
    assert.equal(intact.capture_status, 'available')
    assert.deepEqual(intact.payload, { ok: true })
  })

  test('a stored projection sealed for another row is unreadable here', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, [
      merchantRequest('ORD', '2026-03-01T00:00:00Z'),
      merchantRequest('ORD', '2026-03-01T00:00:01Z'),
    ])
    const source = await db.from('exchange_evidence').where('id', stored.events[0]).first()
    await db
      .from('exchange_evidence')
      .where('id', stored.events[1])
      .update({ projection_ciphertext: source.projection_ciphertext })
    const history = await readHistory(client, admin, stored.id)
    const [, moved] = history.body().data
    assert.equal(moved.capture_status, 'unavailable')
    assert.deepEqual(moved.omissions, [{ field_path: 'body', reason_code: 'snapshot_unreadable' }])
  })

  test('a read serves the projection stored at import and never opens the snapshot', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, fullExchange('ORD-1001'))
    const first = await readHistory(client, admin, stored.id)
    const before = first.body().data
    // Every snapshot made unreadable: the items do not change.
    await db
      .from('exchange_evidence')
      .where('transaction_id', stored.id)
      .whereNotNull('snapshot_ciphertext')
      .update({ snapshot_ciphertext: 'not-a-ciphertext' })
    const after = await readHistory(client, admin, stored.id)
    after.assertStatus(200)
    assert.deepEqual(after.body().data, before)
    assert.equal(after.body().data[0].capture_status, 'available')
  })

  test('an item whose projection was never stored is unavailable until history:reproject', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, [merchantRequest('ORD', '2026-03-01T00:00:00Z')])
    await db
      .from('exchange_evidence')
      .where('id', stored.events[0])
      .update({ projection_ciphertext: null, projection_version: null })
    const unprojected = await readHistory(client, admin, stored.id)
    const [missing] = unprojected.body().data
    assert.equal(missing.capture_status, 'unavailable')
    assert.deepEqual(missing.omissions, [
      { field_path: 'body', reason_code: 'snapshot_unavailable' },
    ])
    await reprojectHistory()
    const reprojected = await readHistory(client, admin, stored.id)
    const [projected] = reprojected.body().data
    assert.equal(projected.capture_status, 'available')
    assert.equal(projected.payload.merchant_transaction_id, 'ORD')
  })

  test('unsupported schema versions and snapshots over 2 MiB are withheld unread', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, [
      { ...merchantRequest('ORD', '2026-03-01T00:00:00Z'), schema_version: 3 },
      { ...merchantRequest('ORD', '2026-03-01T00:00:01Z'), schema_version: 1 },
      merchantRequest('ORD', '2026-03-01T00:00:02Z'),
    ])
    // Over the read bound: the size says so, the bytes are never opened (garbage here).
    await db
      .from('exchange_evidence')
      .where('id', stored.events[2])
      .update({ snapshot_ciphertext: 'garbage', snapshot_size: 2 * 1024 * 1024 + 1 })
    const history = await readHistory(client, admin, stored.id)
    const [unsupported, version1, oversize] = history.body().data
    assert.equal(unsupported.capture_status, 'unavailable')
    assert.deepEqual(unsupported.omissions, [
      { field_path: 'body', reason_code: 'snapshot_schema_unsupported' },
    ])
    assert.equal(version1.capture_status, 'available')
    assert.equal(oversize.capture_status, 'unavailable')
    assert.deepEqual(oversize.omissions, [
      { field_path: 'body', reason_code: 'snapshot_limit_exceeded' },
    ])
  })

  test('an expired unpurged record stays readable; a GET never purges or extends retention', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, [
      { ...merchantRequest('ORD', '2024-01-01T00:00:00Z'), retain_until: '2025-01-01T00:00:00Z' },
    ])
    const before = await db.from('exchange_evidence').select('*')
    const history = await readHistory(client, admin, stored.id)
    const [item] = history.body().data
    assert.equal(item.capture_status, 'available')
    assert.equal(item.retain_until, '2025-01-01T00:00:00.000000Z')
    await readItem(client, admin, stored.id, stored.events[0])
    assert.deepEqual(await db.from('exchange_evidence').select('*'), before)
  })

  test('a known transaction with no permitted captures: data [] and coverage not_captured', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, [
      { kind: 'provider.response', captured_at: '2026-03-01T00:00:00Z', body: { x: 1 } },
    ])
    const response = await readHistory(client, admin, stored.id)
    response.assertStatus(200)
    assert.deepEqual(response.body().data, [])
    assert.deepEqual(response.body().meta, {
      current_page: 1,
      per_page: 25,
      total: 0,
      last_page: 1,
      coverage: {
        merchant_request: 'not_captured',
        dlt_response: 'not_captured',
        merchant_webhook_request: 'not_captured',
        merchant_webhook_response: 'not_captured',
      },
    })
  })

  test('the other environment, another merchant or an unknown transaction is 404', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const other = await signedInMember()
    const mine = await oneTransaction(admin, [merchantRequest('A', '2026-03-01T00:00:00Z')])
    const foreign = await oneTransaction(other, [merchantRequest('B', '2026-03-01T00:00:00Z')])
    for (const [id, environment] of [
      [mine.id, 'test'],
      [foreign.id, 'live'],
      [foreign.id + 100, 'live'],
    ] as const) {
      const response = await readHistory(client, admin, id, { environment })
      response.assertStatus(404)
      assert.equal(response.body().error_code, 'NOT_FOUND')
    }
    assert.lengthOf(await historyAuditRows(), 0)
  })

  test('query: environment required; page and per_page only; others 422', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, [])
    for (const url of [
      route('collections.history.index', { transaction: stored.id }),
      `${route('collections.history.index', { transaction: stored.id })}?environment=LIVE`,
      `${route('collections.history.index', { transaction: stored.id })}?environment=live&per_page=101`,
      `${route('collections.history.index', { transaction: stored.id })}?environment=live&page=0`,
      `${route('collections.history.index', { transaction: stored.id })}?environment=live&kind=internal`,
      `${route('collections.history.index', { transaction: stored.id })}?environment=live&page=1&page=2`,
    ]) {
      const response = await client.get(url).header('Authorization', admin.bearer)
      assert.equal(response.status(), 422, url)
    }
  })

  test('every history list read is audited', async ({ client, assert }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, fullExchange('ORD'))
    await readHistory(client, admin, stored.id, { per_page: 2 })
    const rows = await historyAuditRows()
    assert.lengthOf(rows, 1)
    assert.include(rows[0], {
      action: 'collections.history.list',
      outcome: 'success',
      actor_type: 'user',
      actor_user_id: admin.user.id,
      merchant_id: admin.merchant.id,
      target_type: 'transaction',
      target_id: String(stored.id),
    })
    assert.deepEqual(rows[0].metadata, { environment: 'live', page: 1, per_page: 2, items: 2 })

    // The record counts what the page showed, also past the last page.
    await readHistory(client, admin, stored.id, { page: 99, per_page: 2 })
    const [, beyond] = await historyAuditRows()
    assert.deepEqual(beyond.metadata, { environment: 'live', page: 99, per_page: 2, items: 0 })
  })

  test('when the audit write fails the read is 500 SERVER_ERROR with no evidence', async ({
    client,
    assert,
    cleanup,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, fullExchange('ORD'))
    await db.rawQuery(
      `ALTER TABLE audit_logs ADD CONSTRAINT test_refuses_history_audit
       CHECK (action NOT LIKE 'collections.history.%') NOT VALID`
    )
    cleanup(async () => {
      await db.rawQuery('ALTER TABLE audit_logs DROP CONSTRAINT test_refuses_history_audit')
    })
    for (const path of [
      route('collections.history.index', { transaction: stored.id }),
      route('collections.history.show', { transaction: stored.id, history: stored.events[0] }),
    ]) {
      const response = await client
        .get(path)
        .header('Authorization', admin.bearer)
        .qs({ environment: 'live' })
      response.assertStatus(500)
      assert.deepEqual(response.body(), {
        success: false,
        message: 'An unexpected error occurred.',
        error_code: 'SERVER_ERROR',
      })
      assert.notInclude(JSON.stringify(response.body()), 'ORD')
    }
  })
})

test.group('GET /portal/collections/transactions/{transaction}/history/{history}', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => liftLimit('api'))

  test('one history item, message Success, audited', async ({ client, assert }) => {
    const admin = await signedInMember()
    const developer = await teammate(admin, 'developer')
    const stored = await oneTransaction(admin, fullExchange('ORD'))
    const list = await readHistory(client, admin, stored.id)
    for (const member of [admin, developer]) {
      const response = await readItem(client, member, stored.id, stored.events[2])
      response.assertStatus(200)
      assert.equal(response.body().message, 'Success')
      assert.deepEqual(response.body().data, list.body().data[1])
      assert.notProperty(response.body(), 'meta')
    }
    const rows = await historyAuditRows()
    assert.deepEqual(
      rows.map((row) => [row.action, row.target_type, row.target_id]),
      [
        ['collections.history.list', 'transaction', String(stored.id)],
        ['collections.history.show', 'exchange_evidence', stored.events[2]],
        ['collections.history.show', 'exchange_evidence', stored.events[2]],
      ]
    )
  })

  test('unknown, cross-merchant, cross-environment, other-transaction or hidden ids are 404', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const other = await signedInMember()
    const mine = await oneTransaction(admin, fullExchange('A'), 'A')
    const sibling = await oneTransaction(admin, fullExchange('B'), 'B')
    const foreign = await oneTransaction(other, fullExchange('C'), 'C')
    const [testTransaction] = await importTransactions([
      {
        merchant_id: admin.merchant.id,
        environment: 'test',
        merchant_transaction_id: 'T',
        events: [merchantRequest('T', '2026-03-01T00:00:00Z')],
      },
    ])
    const cases: Array<[number, string, string]> = [
      [mine.id, ulid(), 'live'],
      [mine.id, sibling.events[0], 'live'],
      [mine.id, foreign.events[0], 'live'],
      [foreign.id, foreign.events[0], 'live'],
      [mine.id, mine.events[1], 'live'], // provider.request: never shown
      [mine.id, mine.events[3], 'live'], // internal
      [mine.id, mine.events[0], 'test'],
      [testTransaction.id, testTransaction.events[0], 'live'],
    ]
    for (const [transaction, history, environment] of cases) {
      const response = await readItem(client, admin, transaction, history, { environment })
      assert.equal(response.status(), 404, `${transaction}/${history}/${environment}`)
      assert.equal(response.body().error_code, 'NOT_FOUND')
    }
    assert.lengthOf(await historyAuditRows(), 0)
  })

  test('malformed ULIDs are 404; pagination and other fields are 422', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const stored = await oneTransaction(admin, fullExchange('A'))
    const id = stored.events[0]
    for (const bad of [
      id.toLowerCase(),
      id.slice(1),
      `${id}0`,
      `8${id.slice(1)}`,
      `${id.slice(0, 25)}U`,
      `${id.slice(0, 25)}I`,
    ]) {
      const response = await readItem(client, admin, stored.id, bad)
      assert.equal(response.status(), 404, bad)
    }
    for (const qs of [{ page: 1 }, { per_page: 5 }, { environment: 'Live' }, { extra: 'x' }]) {
      const response = await readItem(client, admin, stored.id, id, qs)
      assert.equal(response.status(), 422, JSON.stringify(qs))
    }
  })
})
