/*
| The hand-written peer of bench/history_page.ts: `node:http` + `pg`, no framework,
| serving GET /api/v1/portal/collections/transactions/{id}/history from the same
| stored projections, with the same work per request as the service:
|
|   the PAT as one prepared statement (token ⋈ user ⋈ merchant ⋈ Portal client, as
|   app/auth/portal_access_tokens.ts resolves it), SHA-256 of the secret against the
|   stored hash, expiry; the API limit per user (the PostgreSQL limiter store's
|   upsert); then the page as bench/peers/history_route.ts builds it.
|
| Usage: DATABASE_URL=... APP_KEY=... PEER_PORT=3416 \
|          node --import=@poppinss/ts-exec bench/peers/history_peer.ts
*/
import http from 'node:http'
import { createHash, timingSafeEqual } from 'node:crypto'
import pg from 'pg'
import { historyPage } from './history_route.js'

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))

const PORT = Number(process.env.PEER_PORT ?? 3416)
// Requests per minute of the API limit, scaled as the server under test scales it.
const API_PER_MINUTE = 60 * Number(process.env.RATE_LIMIT_MULTIPLIER ?? 1)

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })

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

  const actor = {
    userId: token.user_id,
    merchantId: token.merchant_id,
    role,
    ip: request.socket.remoteAddress ?? null,
  } as const
  const body = await historyPage(pool, actor, transactionId, url.searchParams)
  if (!body) return send(response, 404, failure('NOT_FOUND', 'Not found.'))
  send(response, 200, body)
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
