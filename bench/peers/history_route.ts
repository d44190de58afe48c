/*
| The history list of the hand-written peers (bench/peers/history_peer.ts and
| bench/peers/plain_server.ts), once: after the peer's own PAT check and limit, the
| same work per request as the service, from the same stored projections:
|
|   concurrently the audit insert, the page and the coverage, the very statements of
|   historyQueries (transaction_history.ts), prepared; each stored projection opened
|   with AES-256-GCM under the row's purpose (a key object made once; compact seals); the items built
|   by the projection module (historyItemOf, coverageOf: the one place that decides
|   what is shown); the same JSON body.
|
| Booting the app here only gives the statement texts and the pure projection
| functions; no request goes through the framework, Lucid or the encrypter.
*/
import { createDecipheriv, createSecretKey, hkdfSync, randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { Environment } from '#models/collections_vocabulary'
import { bootApp } from '../boot_app.js'
import type { PeerActor } from './peer_access.js'

await bootApp()
const { historyQueries } = await import('#services/collections/history/transaction_history')
const { historyItemOf } = await import('#services/collections/history/project_evidence')
const { coverageOf, eventTypeOf } = await import('#services/collections/history/coverage')
const { withoutTokens } = await import('#services/collections/history/seal_tokens')

// The compact seals' AES-256-GCM key (HKDF-SHA256 of APP_KEY under its own name), made once.
const key = createSecretKey(
  Buffer.from(
    hkdfSync(
      'sha256',
      process.env.APP_KEY!,
      Buffer.alloc(0),
      'merchant-portal:exchange-evidence:seal:v1',
      32
    )
  )
)

/**
 * A compact seal (evidence_cipher.ts: marker, encoding, IV, tag, ciphertext) of a
 * projection opened under `purpose`; null when it does not open.
 */
function open(value: Buffer, purpose: string): unknown {
  if (value.length < 30 || value[0] !== 0xe5) return null
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, value.subarray(2, 14), {
      authTagLength: 16,
    })
    decipher.setAAD(Buffer.concat([value.subarray(0, 2), Buffer.from(purpose)]))
    decipher.setAuthTag(value.subarray(14, 30))
    const plain = Buffer.concat([decipher.update(value.subarray(30)), decipher.final()])
    const text = (value[1] & 0x7f) === 1 ? withoutTokens(plain.toString()) : plain.toString()
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** `?` placeholders as `$n`, and a statement name, once per statement text. */
const prepared = new Map<string, { name: string; text: string }>()
function run(pool: pg.Pool, statement: { sql: string; bindings: unknown[] }) {
  let named = prepared.get(statement.sql)
  if (!named) {
    let index = 0
    named = {
      name: `peer:history:${prepared.size}`,
      text: statement.sql.replace(/\?/g, () => `$${++index}`),
    }
    prepared.set(statement.sql, named)
  }
  return pool.query({ ...named, values: statement.bindings }).then((result) => result.rows)
}

/** The history page's body, or null when the transaction is not the actor's (404). */
export async function historyPage(
  pool: pg.Pool,
  actor: PeerActor,
  transactionId: string,
  search: URLSearchParams
) {
  const environment = search.get('environment') as Environment
  const perPage = Number(search.get('per_page') ?? 25)
  const page = Number(search.get('page') ?? 1)
  const queries = historyQueries(
    { kind: 'user', ...actor, requestId: randomUUID() } as any,
    transactionId,
    { environment, page, perPage }
  )
  const [written, rows, counts] = await Promise.all([
    run(pool, queries.audit),
    run(pool, queries.page),
    run(pool, queries.coverage),
  ])
  if (written.length === 0) return null

  const perType: Record<string, { total: number; unpurged: number }> = {}
  let total = 0
  for (const row of counts) {
    const type = eventTypeOf(row.kind)
    if (!type) continue
    const sum = (perType[type] ??= { total: 0, unpurged: 0 })
    sum.total += row.total
    sum.unpurged += row.unpurged
    total += row.total
  }
  const items = rows.map((row) => {
    const record = {
      id: row.id,
      transactionId: Number(row.transaction_id),
      environment: row.environment,
      kind: row.kind,
      capturedAt: row.captured_at,
      captureFormat: row.capture_format,
      schemaVersion: row.schema_version,
      hasSnapshot: row.has_snapshot,
      snapshotSize: row.snapshot_size,
      contentType: row.content_type,
      bodyCaptureStatus: row.body_capture_status,
      eventId: row.event_id,
      attemptNumber: row.attempt_number,
      httpStatus: row.http_status,
      deliveryState: row.delivery_state,
      durationMs: row.duration_ms,
      isRepeatedRequest: row.is_repeated_request,
      retainUntil: row.retain_until,
      purgedAt: row.purged_at,
    }
    const opened =
      row.projection_ciphertext === null
        ? 'missing'
        : (open(row.projection_ciphertext, `exchange-evidence-projection:${row.id}`) ??
          'unreadable')
    return historyItemOf(record, opened as any)
  })
  return {
    success: true,
    message: 'Success',
    data: items,
    meta: {
      current_page: page,
      per_page: perPage,
      total,
      last_page: Math.max(1, Math.ceil(total / perPage)),
      coverage: coverageOf(perType),
    },
  }
}
