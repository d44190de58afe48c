/*
| The hand-written peer of bench/history_page.ts: `node:http` + `pg`, no framework,
| serving GET /api/v1/portal/collections/transactions/{id}/history from the same
| stored projections, with the same work per request as the service:
|
|   the PAT as one prepared statement (token ⋈ user ⋈ merchant ⋈ Portal client, as
|   app/auth/portal_access_tokens.ts resolves it), SHA-256 of the secret against the
|   stored hash, expiry; the API limit per user (the PostgreSQL limiter store's
|   upsert); then, concurrently, the audit insert, the page and the coverage, the very
|   statements of historyQueries (transaction_history.ts), prepared; each stored
|   projection opened with AES-256-GCM under the row's purpose (a key object made
|   once); the items built by the projection module (historyItemOf, coverageOf: the
|   one place that decides what is shown); the same JSON body.
|
| Booting the app here only gives the statement texts and the pure projection
| functions; no request goes through the framework, Lucid or the encrypter.
|
| Usage: DATABASE_URL=... APP_KEY=... PEER_PORT=3416 \
|          node --import=@poppinss/ts-exec bench/peers/history_peer.ts
*/
import http from 'node:http'
import {
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  randomUUID,
  timingSafeEqual,
} from 'node:crypto'
import pg from 'pg'
import { bootApp } from '../boot_app.js'

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))

const PORT = Number(process.env.PEER_PORT ?? 3416)
const APP_KEY = process.env.APP_KEY!
// Requests per minute of the API limit, scaled as the server under test scales it.
const API_PER_MINUTE = 60 * Number(process.env.RATE_LIMIT_MULTIPLIER ?? 1)

await bootApp()
const { historyQueries } = await import('#services/collections/transaction_history')
const { historyItemOf, coverageOf, eventTypeOf } = await import('#history/projection')
const { default: encryption } = await import('@adonisjs/core/services/encryption')

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })

// The encrypter's AES-256-GCM key (its id, then HKDF of SHA-256(APP_KEY)), made once.
const encrypterId = encryption.encrypt('probe').split('.')[0]
const key = createSecretKey(
  Buffer.from(
    hkdfSync(
      'sha256',
      createHash('sha256').update(APP_KEY).digest(),
      Buffer.alloc(0),
      Buffer.from(`aes-256-gcm:v1:${encrypterId}`),
      32
    )
  )
)

/** `<id>.v1:<ciphertext>.<iv>.<tag>` opened under `purpose`; null when it does not open. */
function open(value: string, purpose: string): unknown {
  const [id, body, iv, tag] = value.split('.')
  if (id !== encrypterId || !body?.startsWith('v1:') || !iv || !tag) return null
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
      authTagLength: 16,
    })
    decipher.setAAD(Buffer.from(purpose))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    const plain = Buffer.concat([
      decipher.update(Buffer.from(body.slice(3), 'base64url')),
      decipher.final(),
    ])
    return JSON.parse(plain.toString()).message
  } catch {
    return null
  }
}

/** `?` placeholders as `$n`, and a statement name, once per statement text. */
const prepared = new Map<string, { name: string; text: string }>()
function run(statement: { sql: string; bindings: unknown[] }) {
  let named = prepared.get(statement.sql)
  if (!named) {
    let index = 0
    named = {
      name: `peer:${prepared.size}`,
      text: statement.sql.replace(/\?/g, () => `$${++index}`),
    }
    prepared.set(statement.sql, named)
  }
  return pool.query({ ...named, values: statement.bindings }).then((result) => result.rows)
}

function send(response: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  })
  response.end(text)
}

const failure = (code: string, message: string) => ({ success: false, message, error_code: code })

const RESOLVE = `select t.id, t.hash, t.expires_at, t.abilities, u.id as user_id, u.role,
    u.is_active as user_active, u.merchant_id, m.is_active as merchant_active,
    coalesce(pc.is_active, false) as application_active
  from auth_access_tokens t
  left join users u on u.id = t.tokenable_id
  left join merchants m on m.id = u.merchant_id
  left join portal_clients pc on pc.id = t.portal_client_id
  where t.id = $1 and t.type = 'portal'`

const LIMIT = `insert into rate_limits values ($1, 1, $2)
  on conflict (key) do update set
    points = case when rate_limits.expire <= $3 then 1 else rate_limits.points + 1 end,
    expire = case when rate_limits.expire <= $3 then $2 else rate_limits.expire end
  returning points`

const HISTORY_PATH = /^\/api\/v1\/portal\/collections\/transactions\/([1-9][0-9]{0,15})\/history$/

async function history(request: http.IncomingMessage, response: http.ServerResponse) {
  const url = new URL(request.url!, 'http://peer')
  const transactionId = HISTORY_PATH.exec(url.pathname)?.[1]
  if (!transactionId) return send(response, 404, failure('NOT_FOUND', 'Not found.'))
  const match = /^Bearer pat_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(
    request.headers.authorization ?? ''
  )
  const invalid = () =>
    send(response, 401, failure('ACCESS_TOKEN_INVALID', 'The access token is invalid.'))
  if (!match) return invalid()
  const tokenId = Buffer.from(match[1], 'base64url').toString()
  if (!/^[1-9][0-9]{0,15}$/.test(tokenId)) return invalid()
  const resolved = await pool.query({ name: 'peer:resolve', text: RESOLVE, values: [tokenId] })
  const [token] = resolved.rows
  if (!token) return invalid()
  const presented = createHash('sha256')
    .update(Buffer.from(match[2], 'base64url').toString())
    .digest('hex')
  if (!timingSafeEqual(Buffer.from(token.hash), Buffer.from(presented))) return invalid()
  if (token.expires_at && token.expires_at.getTime() <= Date.now()) return invalid()
  const role = token.role === 1 ? 'administrator' : token.role === 10 ? 'developer' : null
  if (!token.user_active || !role || !token.merchant_active || !token.application_active) {
    return send(response, 403, failure('MERCHANT_USER_NOT_AUTHORIZED', 'Not authorized.'))
  }
  const now = Date.now()
  const consumed = await pool.query({
    name: 'peer:limit',
    text: LIMIT,
    values: [`peer:api:user:${token.user_id}`, now + 60_000, now],
  })
  const [limit] = consumed.rows
  if (limit.points > API_PER_MINUTE) {
    return send(response, 429, failure('RATE_LIMITED', 'Too many requests.'))
  }

  const environment = url.searchParams.get('environment') as 'live' | 'test'
  const perPage = Number(url.searchParams.get('per_page') ?? 25)
  const page = Number(url.searchParams.get('page') ?? 1)
  const actor = {
    kind: 'user' as const,
    userId: token.user_id,
    merchantId: token.merchant_id,
    role,
    ip: request.socket.remoteAddress ?? null,
    requestId: randomUUID(),
  }
  const queries = historyQueries(actor as any, transactionId, { environment, page, perPage })
  const [written, rows, counts] = await Promise.all([
    run(queries.audit),
    run(queries.page),
    run(queries.coverage),
  ])
  if (written.length === 0) return send(response, 404, failure('NOT_FOUND', 'Not found.'))

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
  send(response, 200, {
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
  })
}

http
  .createServer((request, response) => {
    const handler =
      request.method === 'GET' && request.url?.startsWith('/api/v1/portal/collections/')
        ? history
        : async () => send(response, request.url === '/health/live' ? 200 : 404, {})
    handler(request, response).catch((error) => {
      console.error(error)
      if (!response.headersSent) send(response, 500, failure('SERVER_ERROR', 'Error.'))
    })
  })
  .listen(PORT, '127.0.0.1')
