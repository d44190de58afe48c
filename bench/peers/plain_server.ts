/*
| The hand-written peer of bench/hot_paths.ts: `node:http` + `pg`, no framework,
| written the obvious plain way. It performs the same checks as the service on the
| same database and answers the same JSON:
|
| GET /api/v1/portal/me
|   token row by id (`pat_<base64url id>.<base64url secret>`), SHA-256 of the secret
|   against the stored hash (constant time), expiry, last_used_at at most once a
|   minute; then user, merchant and issuing Portal client, one query each; the
|   API-wide limit per user (the PostgreSQL limiter store's upsert, or the Redis
|   store's script with REDIS_URL); the Profile body.
|
| POST /oauth/token
|   the token limit per IP (same store), the form body, the client row by id,
|   HMAC-SHA256(APP_KEY) of the secret against the stored hash (constant time), a
|   token insert into oauth_access_tokens; the OAuth body. Happy path only.
|
| Usage: DATABASE_URL=... APP_KEY=... PEER_PORT=3522 [REDIS_URL=...] \
|          node --import=@poppinss/ts-exec bench/peers/plain_server.ts
*/
import http from 'node:http'
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import pg from 'pg'
import { Redis } from 'ioredis'

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))

const PORT = Number(process.env.PEER_PORT ?? 3522)
const APP_KEY = process.env.APP_KEY!
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : null
const LIMIT_DURATION_SECONDS = 60
const TOKEN_TTL_SECONDS = Number(process.env.MACHINE_TOKEN_TTL_SECONDS ?? 3600)

const REDIS_CONSUME = `redis.call('set', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local consumed = redis.call('incrby', KEYS[1], 1)
local ttl = redis.call('pttl', KEYS[1])
return {consumed, ttl}`

/** One request of a per-minute limit; true when allowed. */
async function consume(key: string, perMinute: number): Promise<boolean> {
  if (redis) {
    const [consumed] = (await redis.eval(
      REDIS_CONSUME,
      1,
      `peer:${key}`,
      LIMIT_DURATION_SECONDS
    )) as [number, number]
    return consumed <= perMinute
  }
  const now = Date.now()
  const { rows } = await pool.query(
    `insert into rate_limits values ($1, 1, $2)
       on conflict (key) do update set
         points = case when rate_limits.expire <= $3 then 1 else rate_limits.points + 1 end,
         expire = case when rate_limits.expire <= $3 then $2 else rate_limits.expire end
     returning points`,
    [`peer:${key}`, now + LIMIT_DURATION_SECONDS * 1000, now]
  )
  return rows[0].points <= perMinute
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

const error = (code: string, message: string) => ({
  success: false,
  message,
  error_code: code,
})

function sameHash(expected: string, actual: string) {
  const a = Buffer.from(expected)
  const b = Buffer.from(actual)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The first row of a query, or undefined. */
async function one(text: string, values: unknown[]) {
  const result = await pool.query(text, values)
  return result.rows[0]
}

const iso = (value: Date | null) => (value ? value.toISOString() : null)

async function portalMe(request: http.IncomingMessage, response: http.ServerResponse) {
  const match = /^Bearer pat_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(
    request.headers.authorization ?? ''
  )
  const invalid = () =>
    send(response, 401, error('ACCESS_TOKEN_INVALID', 'The access token is invalid.'))
  if (!match) return invalid()
  const id = Buffer.from(match[1], 'base64url').toString()
  const secret = Buffer.from(match[2], 'base64url').toString()
  if (!/^[1-9][0-9]{0,15}$/.test(id)) return invalid()

  const token = await one(`select * from auth_access_tokens where id = $1 and type = 'portal'`, [
    id,
  ])
  if (!token) return invalid()
  if (!sameHash(token.hash, createHash('sha256').update(secret).digest('hex'))) return invalid()
  const now = Date.now()
  if (token.expires_at && token.expires_at.getTime() <= now) return invalid()
  if (!token.last_used_at || token.last_used_at.getTime() < now - 60_000) {
    await pool.query(
      `update auth_access_tokens set last_used_at = $2
        where id = $1 and (last_used_at is null or last_used_at < $3)`,
      [id, new Date(now), new Date(now - 60_000)]
    )
  }

  const user = await one('select * from users where id = $1', [token.tokenable_id])
  if (!user) return invalid()
  const merchant = user.merchant_id
    ? await one('select * from merchants where id = $1', [user.merchant_id])
    : null
  const role = user.role === 1 ? 'administrator' : user.role === 10 ? 'developer' : null
  if (!user.is_active || !role || !merchant || !merchant.is_active) {
    return send(response, 403, error('MERCHANT_USER_NOT_AUTHORIZED', 'Not authorized.'))
  }
  const application = token.portal_client_id
    ? await one('select * from portal_clients where id = $1', [token.portal_client_id])
    : null
  if (!application || !application.is_active) {
    return send(
      response,
      403,
      error('ECOSYSTEM_APPLICATION_NOT_AUTHORIZED', 'Application not authorized.')
    )
  }
  if (!JSON.parse(token.abilities).includes('merchant-portal')) {
    return send(response, 403, error('ACCESS_TOKEN_SCOPE_INSUFFICIENT', 'Scope.'))
  }
  if (!(await consume(`api:user:${user.id}`, 60 * 100000))) {
    return send(response, 429, error('RATE_LIMITED', 'Too many requests.'))
  }

  const pending =
    user.pending_email !== null &&
    user.pending_email_expires_at !== null &&
    user.pending_email_expires_at.getTime() > now
  send(response, 200, {
    success: true,
    message: 'Success',
    data: {
      id: user.id,
      reference_id: user.reference_id,
      first_name: user.first_name,
      last_name: user.last_name,
      username: user.username,
      email: user.email,
      pending_email: pending ? user.pending_email : null,
      pending_email_expires_at: pending ? iso(user.pending_email_expires_at) : null,
      email_verified_at: iso(user.email_verified_at),
      role,
      is_active: user.is_active,
      merchant: { id: merchant.id, reference_id: merchant.reference_id, name: merchant.name },
    },
  })
}

async function oauthToken(request: http.IncomingMessage, response: http.ServerResponse) {
  const ip = request.socket.remoteAddress ?? '-'
  if (!(await consume(`oauthToken:${ip}`, 30 * 100000))) {
    return send(response, 429, { error: 'slow_down' })
  }
  let raw = ''
  for await (const chunk of request) raw += chunk
  const form = new URLSearchParams(raw)
  const invalidClient = () => send(response, 401, { error: 'invalid_client' })
  if (form.get('grant_type') !== 'client_credentials') {
    return send(response, 400, { error: 'unsupported_grant_type' })
  }
  const clientId = form.get('client_id') ?? ''
  const secret = form.get('client_secret') ?? ''
  if (!/^[1-9][0-9]{0,15}$/.test(clientId)) return invalidClient()
  const client = await one('select * from oauth_clients where id = $1', [clientId])
  const presented = 'hmac-sha256$' + createHmac('sha256', APP_KEY).update(secret).digest('hex')
  if (!client || !client.secret_hash || client.revoked_at || client.kind !== 'machine') {
    return invalidClient()
  }
  if (!sameHash(client.secret_hash, presented)) return invalidClient()

  const tokenSecret = randomBytes(30).toString('base64url')
  const now = new Date()
  const { rows } = await pool.query(
    `insert into oauth_access_tokens
       (tokenable_id, type, name, hash, abilities, created_at, updated_at, last_used_at, expires_at)
     values ($1, 'machine', null, $2, $3, $4, $4, null, $5) returning id`,
    [
      client.id,
      createHash('sha256').update(tokenSecret).digest('hex'),
      JSON.stringify(['merchant-api']),
      now,
      new Date(now.getTime() + TOKEN_TTL_SECONDS * 1000),
    ]
  )
  const value = `mat_${Buffer.from(String(rows[0].id)).toString('base64url')}.${Buffer.from(tokenSecret).toString('base64url')}`
  send(response, 200, { token_type: 'Bearer', expires_in: TOKEN_TTL_SECONDS, access_token: value })
}

http
  .createServer((request, response) => {
    const handler =
      request.method === 'GET' && request.url === '/api/v1/portal/me'
        ? portalMe
        : request.method === 'POST' && request.url === '/oauth/token'
          ? oauthToken
          : request.url === '/health/live'
            ? async () => send(response, 200, { status: 'ok' })
            : async () => send(response, 404, { error: 'not found' })
    handler(request, response).catch((failure) => {
      console.error(failure)
      if (!response.headersSent) send(response, 500, { error: 'server_error' })
    })
  })
  .listen(PORT, '127.0.0.1')
