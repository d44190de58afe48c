/*
| What the small hand-written peer history_peer.ts shares with the
| service's work before a Portal read: the PAT as one prepared statement (token ⋈
| user ⋈ merchant ⋈ Portal client, as app/auth/portal_access_tokens.ts resolves it),
| SHA-256 of the secret against the stored hash, expiry, role and active flags; then
| the API limit per user (the PostgreSQL limiter store's upsert). Also the JSON answer
| and the `node:http` server around one route; the JSON answer, the error body and the
| constant-time comparison are plain_server.ts's and login_route.ts's too.
*/
import http from 'node:http'
import { createHash, timingSafeEqual } from 'node:crypto'
import type pg from 'pg'

// Requests per minute of the API limit, scaled as the server under test scales it.
const API_PER_MINUTE = 60 * Number(process.env.RATE_LIMIT_MULTIPLIER ?? 1)

const RESOLVE = `select t.hash, t.expires_at, u.id as user_id, u.role,
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

export function send(response: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  })
  response.end(text)
}

export const failure = (code: string, message: string) => ({
  success: false,
  message,
  error_code: code,
})

/** Whether two texts (stored and presented hashes) are equal, compared in constant time. */
export function sameText(expected: string, actual: string) {
  const a = Buffer.from(expected)
  const b = Buffer.from(actual)
  return a.length === b.length && timingSafeEqual(a, b)
}

export interface PeerActor {
  userId: number
  merchantId: number
  role: 'administrator' | 'developer'
  ip: string | null
}

/** The caller of a Portal read, or null once its 401, 403 or 429 is answered. */
export async function authorizeRead(
  pool: pg.Pool,
  request: http.IncomingMessage,
  response: http.ServerResponse
): Promise<PeerActor | null> {
  const match = /^Bearer pat_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(
    request.headers.authorization ?? ''
  )
  const invalid = () => {
    send(response, 401, failure('ACCESS_TOKEN_INVALID', 'The access token is invalid.'))
    return null
  }
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
    send(response, 403, failure('MERCHANT_USER_NOT_AUTHORIZED', 'Not authorized.'))
    return null
  }
  const now = Date.now()
  const consumed = await pool.query({
    name: 'peer:limit',
    text: LIMIT,
    values: [`peer:api:user:${token.user_id}`, now + 60_000, now],
  })
  const [limit] = consumed.rows
  if (limit.points > API_PER_MINUTE) {
    send(response, 429, failure('RATE_LIMITED', 'Too many requests.'))
    return null
  }
  return {
    userId: Number(token.user_id),
    merchantId: Number(token.merchant_id),
    role,
    ip: request.socket.remoteAddress ?? null,
  }
}

/** Serves GET requests whose URL starts with `prefix` with `route`, and /health/live. */
export function servePeer(
  port: number,
  prefix: string,
  route: (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>
) {
  http
    .createServer((request, response) => {
      const handler =
        request.method === 'GET' && request.url?.startsWith(prefix)
          ? route
          : async () => send(response, request.url === '/health/live' ? 200 : 404, {})
      handler(request, response).catch((error) => {
        console.error(error)
        if (!response.headersSent) send(response, 500, failure('SERVER_ERROR', 'Error.'))
      })
    })
    .listen(port, '127.0.0.1')
}
