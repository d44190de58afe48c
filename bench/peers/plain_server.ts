/*
| The hand-written peer of bench/hot_paths.ts: `node:http` + `pg`, no framework,
| and of bench/chart_zones.ts, written the best plain way: every statement named and
| prepared (parsed and planned once per connection), the same round trips as the
| service, and its sessions' settings (JIT off: compiling each execution of the
| reporting statements cost more than it saved, 519 against 469 ms single p50 for the
| one-year daily chart at 824,213 rows). It performs the same
| checks as the service on the same database and answers the same JSON.
|
| Every Portal route: the PAT (`pat_<base64url id>.<base64url secret>`) as ONE
| statement (token ⋈ user ⋈ merchant ⋈ Portal client, as
| app/auth/portal_access_tokens.ts resolves it), SHA-256 of the secret against the
| stored hash (constant time), expiry, last_used_at at most once a minute, the
| account, application and ability checks; then the API-wide limit per user (the
| PostgreSQL limiter store's upsert, or the Redis store's script with REDIS_URL);
| then the route:
|
| GET /api/v1/portal/me                         the Profile body from the PAT row.
| GET /api/v1/portal/collections/transactions   the obvious list: the page
|   (`ORDER BY created_at DESC NULLS LAST, id DESC LIMIT OFFSET`) and `count(*)` of
|   the same conditions, concurrently; filters environment, from/to, status.
| GET .../transactions/{id}                     one row by id, merchant, environment.
| GET .../transactions/{id}/history             bench/peers/history_route.ts.
| GET /api/v1/portal/collections/metrics        one aggregate over `transactions`
|   (count/sum FILTER by status) with the currency catalogue check in it.
| GET /api/v1/portal/collections/charts         the same grouped by the local period
|   (date_trunc in the reporting time zone), joined to the periods of
|   generate_series in that zone; day, month or year.
| The reporting routes read `transactions` directly: no rollups (those are the
| service's design).
|
| POST /oauth/token
|   the token limit per IP (same store), the form body, the client row by id,
|   HMAC-SHA256(APP_KEY) of the secret against the stored hash (constant time), a
|   token insert into oauth_access_tokens; the OAuth body. Happy path only.
|
| POST /api/v1/auth/login                       bench/peers/login_route.ts.
|
| Input is trusted (the happy paths of the benches): no validation beyond what the
| statements need.
|
| Usage: DATABASE_URL=... APP_KEY=... PEER_PORT=3522 [REDIS_URL=...] \
|          node --import=@poppinss/ts-exec bench/peers/plain_server.ts
*/
import http from 'node:http'
import { createHash, createHmac, randomBytes } from 'node:crypto'
import pg from 'pg'
import { Redis } from 'ioredis'
import { PERMITTED_KINDS } from '#services/collections/history/evidence_kinds'
import { historyPage } from './history_route.js'
import { login } from './login_route.js'
import { failure, sameText, send } from './peer_access.js'

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))

const PORT = Number(process.env.PEER_PORT ?? 3522)
const APP_KEY = process.env.APP_KEY!
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  // Idle connections kept 5 minutes, as the service keeps its own (config/database.ts):
  // at pg's 10 s, the gaps between a bench's rounds closed them, and each round paid
  // new backends and statements prepared again.
  idleTimeoutMillis: 300_000,
  options: '-c jit=off',
})
const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : null
const LIMIT_DURATION_SECONDS = 60
const TOKEN_TTL_SECONDS = Number(process.env.MACHINE_TOKEN_TTL_SECONDS ?? 3600)
// Requests per minute, scaled as the server under test scales its limits.
const MULTIPLIER = Number(process.env.RATE_LIMIT_MULTIPLIER ?? 1)
const REPORTING_TIMEZONE = process.env.REPORTING_DEFAULT_TIMEZONE || 'Asia/Manila'

/** Rows of a named (prepared) statement. */
async function rows(name: string, text: string, values: unknown[]) {
  const result = await pool.query({ name, text, values })
  return result.rows
}

const REDIS_CONSUME = `redis.call('set', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local consumed = redis.call('incrby', KEYS[1], 1)
local ttl = redis.call('pttl', KEYS[1])
return {consumed, ttl}`

const CONSUME = `insert into rate_limits values ($1, 1, $2)
  on conflict (key) do update set
    points = case when rate_limits.expire <= $3 then 1 else rate_limits.points + 1 end,
    expire = case when rate_limits.expire <= $3 then $2 else rate_limits.expire end
  returning points`

/** One request of a per-minute limit; true when allowed. */
async function consume(key: string, perMinute: number): Promise<boolean> {
  if (redis) {
    const [consumed] = (await redis.eval(
      REDIS_CONSUME,
      1,
      `peer:${key}`,
      LIMIT_DURATION_SECONDS
    )) as [number, number]
    return consumed <= perMinute * MULTIPLIER
  }
  const now = Date.now()
  const [limit] = await rows('peer:consume', CONSUME, [
    `peer:${key}`,
    now + LIMIT_DURATION_SECONDS * 1000,
    now,
  ])
  return limit.points <= perMinute * MULTIPLIER
}

const success = (data: unknown, meta?: unknown) =>
  meta === undefined
    ? { success: true, message: 'Success', data }
    : { success: true, message: 'Success', data, meta }

const iso = (value: Date | null) => (value ? value.toISOString() : null)

// ---------------------------------------------------------------- the PAT

const RESOLVE = `select t.id, t.hash, t.abilities, t.expires_at, t.last_used_at,
    t.portal_client_id, coalesce(pc.is_active, false) as application_active,
    u.id as user_id, u.reference_id as user_reference_id, u.first_name, u.last_name,
    u.username, u.email, u.pending_email, u.pending_email_expires_at,
    u.email_verified_at, u.role, u.is_active as user_active,
    m.id as merchant_id, m.reference_id as merchant_reference_id,
    m.name as merchant_name, m.is_active as merchant_active
  from auth_access_tokens t
  left join users u on u.id = t.tokenable_id
  left join merchants m on m.id = u.merchant_id
  left join portal_clients pc on pc.id = t.portal_client_id
  where t.id = $1 and t.type = 'portal'`

const TOUCH = `update auth_access_tokens set last_used_at = $2
  where id = $1 and (last_used_at is null or last_used_at < $3)`

type Account = Record<string, any> & { role_name: 'administrator' | 'developer' }

/**
 * The PAT's row with its user and merchant once every check passed and the API limit
 * allowed the request; otherwise the refusal is sent and null returned.
 */
async function authenticate(
  request: http.IncomingMessage,
  response: http.ServerResponse
): Promise<Account | null> {
  const match = /^Bearer pat_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(
    request.headers.authorization ?? ''
  )
  const invalid = () => {
    send(response, 401, failure('ACCESS_TOKEN_INVALID', 'The access token is invalid.'))
    return null
  }
  if (!match) return invalid()
  const id = Buffer.from(match[1], 'base64url').toString()
  if (!/^[1-9][0-9]{0,15}$/.test(id)) return invalid()
  const [token] = await rows('peer:resolve', RESOLVE, [id])
  if (!token) return invalid()
  const secret = Buffer.from(match[2], 'base64url').toString()
  if (!sameText(token.hash, createHash('sha256').update(secret).digest('hex'))) return invalid()
  const now = Date.now()
  if (token.expires_at && token.expires_at.getTime() <= now) return invalid()
  if (!token.last_used_at || token.last_used_at.getTime() < now - 60_000) {
    await rows('peer:touch', TOUCH, [id, new Date(now), new Date(now - 60_000)])
  }
  if (token.user_id === null) return invalid()

  const role = token.role === 1 ? 'administrator' : token.role === 10 ? 'developer' : null
  let refusal: [string, string] | null = null
  if (!token.user_active || !role || token.merchant_id === null || !token.merchant_active) {
    refusal = ['MERCHANT_USER_NOT_AUTHORIZED', 'Not authorized.']
  } else if (!token.portal_client_id || !token.application_active) {
    refusal = ['ECOSYSTEM_APPLICATION_NOT_AUTHORIZED', 'Application not authorized.']
  } else if (!JSON.parse(token.abilities).includes('merchant-portal')) {
    refusal = ['ACCESS_TOKEN_SCOPE_INSUFFICIENT', 'Scope.']
  }
  const allowed = await consume(`api:user:${token.user_id}`, 60)
  if (refusal) {
    send(response, 403, failure(...refusal))
    return null
  }
  if (!allowed) {
    send(response, 429, failure('RATE_LIMITED', 'Too many requests.'))
    return null
  }
  return Object.assign(token, { role_name: role! })
}

// ---------------------------------------------------------------- routes

function profile(account: Account) {
  const pending =
    account.pending_email !== null &&
    account.pending_email_expires_at !== null &&
    account.pending_email_expires_at.getTime() > Date.now()
  return success({
    id: account.user_id,
    reference_id: account.user_reference_id,
    first_name: account.first_name,
    last_name: account.last_name,
    username: account.username,
    email: account.email,
    pending_email: pending ? account.pending_email : null,
    pending_email_expires_at: pending ? iso(account.pending_email_expires_at) : null,
    email_verified_at: iso(account.email_verified_at),
    role: account.role_name,
    is_active: account.user_active,
    merchant: {
      id: account.merchant_id,
      reference_id: account.merchant_reference_id,
      name: account.merchant_name,
    },
  })
}

const utc = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

const TRANSACTION_COLUMNS = `t.id, t.merchant_transaction_id, t.environment, t.amount,
  t.currency, t.status, t.payment_brand, ${utc('t.created_at')} as created_at,
  ${utc('t.updated_at')} as updated_at,
  exists (select 1 from evidence_records e
           where e.transaction_id = t.id and e.merchant_id = t.merchant_id
             and e.environment = t.environment and e.purged_at is null
             and (not exists (select 1 from evidence_purged_months pm
                               where pm.month = e.body_month)
                  or exists (select 1 from evidence_bodies b
                              where b.id = e.id and b.body_month = 'infinity'))
             and e.kind in (${PERMITTED_KINDS.map((kind) => `'${kind}'`).join(', ')})
         ) as history_available`

const transaction = (row: Record<string, any>) => ({
  id: row.id,
  merchant_transaction_id: row.merchant_transaction_id,
  environment: row.environment,
  amount: row.amount,
  currency: row.currency,
  status: row.status,
  payment_brand: row.payment_brand,
  payment_method: null,
  created_at: row.created_at,
  updated_at: row.updated_at,
  history_available: row.history_available,
})

/** The list's statements for the filters present (one named pair per combination). */
function listStatements(search: URLSearchParams, merchantId: number) {
  const conditions = ['merchant_id = $1', 'environment = $2']
  const values: unknown[] = [merchantId, search.get('environment')]
  let shape = ''
  if (search.has('from') && search.has('to')) {
    values.push(search.get('from'), search.get('to'))
    conditions.push(`created_at >= $${values.length - 1}`, `created_at < $${values.length}`)
    shape += ':range'
  }
  if (search.has('status')) {
    values.push(search.get('status'))
    conditions.push(`status = $${values.length}`)
    shape += ':status'
  }
  const where = conditions.join(' and ')
  const limit = values.length + 1
  return {
    page: {
      name: `peer:list${shape}`,
      text: `select ${TRANSACTION_COLUMNS} from transactions t where ${where}
              order by created_at desc nulls last, id desc limit $${limit} offset $${limit + 1}`,
    },
    count: {
      name: `peer:count${shape}`,
      text: `select count(*) as total from transactions where ${where}`,
    },
    values,
  }
}

async function transactions(account: Account, search: URLSearchParams) {
  const page = Number(search.get('page') ?? 1)
  const perPage = Number(search.get('per_page') ?? 25)
  const statements = listStatements(search, account.merchant_id)
  const [items, [count]] = await Promise.all([
    rows(statements.page.name, statements.page.text, [
      ...statements.values,
      perPage,
      (page - 1) * perPage,
    ]),
    rows(statements.count.name, statements.count.text, statements.values),
  ])
  return success(items.map(transaction), {
    current_page: page,
    per_page: perPage,
    total: count.total,
    last_page: Math.max(1, Math.ceil(count.total / perPage)),
  })
}

const DETAIL = `select ${TRANSACTION_COLUMNS} from transactions t
  where t.id = $1 and t.merchant_id = $2 and t.environment = $3`

async function detail(account: Account, id: string, search: URLSearchParams) {
  const [row] = await rows('peer:detail', DETAIL, [
    id,
    account.merchant_id,
    search.get('environment'),
  ])
  return row ? success(transaction(row)) : null
}

// ---------------------------------------------------------------- reporting

/** Wall-clock text (to the microsecond) and offset of $ts in time zone $tz. */
const local = (ts: string, tz: string, as: string) =>
  `to_char(${ts} at time zone ${tz}, 'YYYY-MM-DD"T"HH24:MI:SS.US') as ${as}_wall,
   extract(epoch from (${ts} at time zone ${tz}) - (${ts} at time zone 'UTC'))::int as ${as}_offset`

/** `wall` with its offset (seconds) as `+08:00`. */
function withOffset(wall: string, offsetSeconds: number) {
  const minutes = Math.round(offsetSeconds / 60)
  const absolute = Math.abs(minutes)
  const two = (value: number) => String(value).padStart(2, '0')
  return `${wall}${minutes < 0 ? '-' : '+'}${two(Math.floor(absolute / 60))}:${two(absolute % 60)}`
}

const FIGURES = `count(*) as transaction_count,
  count(*) filter (where status = 'PAID') as successful_count,
  count(*) filter (where status = 'PENDING') as pending_count,
  count(*) filter (where status = 'REJECTED') as rejected_count,
  sum(amount) filter (where status = 'PAID') as collection_total,
  count(*) filter (where status = 'PAID' and amount is null) as paid_without_amount`

// $1 merchant, $2 environment, $3 currency, $4 from, $5 to, $6 time zone, $7 brand or
// null. A statement each with and without the brand, as written by hand: without a
// brand, the generic plan checks `$7 is null` once instead of `$7 is null or brand =
// $7` on every row (both scan the same index).
const population = (brand: boolean) => `merchant_id = $1 and environment = $2 and currency = $3
  and created_at >= $4::timestamptz and created_at < $5::timestamptz
  and ${brand ? 'payment_brand = $7' : '$7::text is null'}`

const metricsStatement = (brand: boolean) => `select ${FIGURES},
    exists (select 1 from currencies where code = $3) as supported,
    ${local('$4::timestamptz', '$6::text', 'from')}, ${local('$5::timestamptz', '$6::text', 'to')}
  from transactions where ${population(brand)}`
const METRICS = { all: metricsStatement(false), brand: metricsStatement(true) }

// $8 the interval ('day', 'month', 'year'); the periods are local, from the period of
// `from` to the period of the last instant before `to`.
const chartStatement = (brand: boolean) => `with totals as (
    select date_trunc($8, created_at at time zone $6::text) as period_start, ${FIGURES}
      from transactions where ${population(brand)} group by 1
  ), periods as (
    select period_start, period_start + ('1 ' || $8)::interval as period_end
      from generate_series(date_trunc($8, $4::timestamptz at time zone $6::text),
                           ($5::timestamptz - interval '1 microsecond') at time zone $6::text,
                           ('1 ' || $8)::interval) as period_start
  ), buckets as (
    select p.period_start,
           greatest(p.period_start at time zone $6::text, $4::timestamptz) as bucket_from,
           least(p.period_end at time zone $6::text, $5::timestamptz) as bucket_to,
           p.period_start at time zone $6::text < $4::timestamptz
             or p.period_end at time zone $6::text > $5::timestamptz as partial,
           coalesce(t.transaction_count, 0) as transaction_count,
           coalesce(t.successful_count, 0) as successful_count,
           coalesce(t.pending_count, 0) as pending_count,
           coalesce(t.rejected_count, 0) as rejected_count,
           t.collection_total, coalesce(t.paid_without_amount, 0) as paid_without_amount
      from periods p left join totals t using (period_start)
  )
  select to_char(period_start, case $8 when 'day' then 'YYYY-MM-DD'
                                       when 'month' then 'YYYY-MM' else 'YYYY' end) as period,
         ${local('bucket_from', '$6::text', 'bucket_from')},
         ${local('bucket_to', '$6::text', 'bucket_to')},
         partial, transaction_count, successful_count, pending_count, rejected_count,
         collection_total, paid_without_amount,
         sum(transaction_count) over () as all_transaction_count,
         sum(successful_count) over () as all_successful_count,
         sum(pending_count) over () as all_pending_count,
         sum(rejected_count) over () as all_rejected_count,
         sum(collection_total) over () as all_collection_total,
         sum(paid_without_amount) over () as all_paid_without_amount,
         exists (select 1 from currencies where code = $3) as supported,
         ${local('$4::timestamptz', '$6::text', 'from')},
         ${local('$5::timestamptz', '$6::text', 'to')}
    from buckets order by period_start`
const CHART = { all: chartStatement(false), brand: chartStatement(true) }

/** The six metric fields from a row's columns (prefixed `all_` for chart totals). */
function figures(row: Record<string, any>, prefix = '') {
  const total = Number(row[`${prefix}transaction_count`])
  const successful = Number(row[`${prefix}successful_count`])
  return {
    collection_total: row[`${prefix}collection_total`] ?? '0.00',
    transaction_count: total,
    successful_count: successful,
    pending_count: Number(row[`${prefix}pending_count`]),
    rejected_count: Number(row[`${prefix}rejected_count`]),
    success_rate_percent: total === 0 ? null : ratePercent(successful, total),
  }
}

/** successful / total × 100 rounded half-up to hundredths, exactly (integers below 2^53). */
function ratePercent(successful: number, total: number) {
  const hundredths = Math.floor((2 * successful * 10_000 + total) / (2 * total))
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`
}

function reportingValues(account: Account, search: URLSearchParams) {
  const timezone = search.get('timezone') ?? REPORTING_TIMEZONE
  return {
    timezone,
    values: [
      account.merchant_id,
      search.get('environment'),
      search.get('currency'),
      search.get('from'),
      search.get('to'),
      timezone,
      search.get('payment_brand'),
    ],
  }
}

type Reply = [status: number, body: unknown]

const unavailable = (message: string): Reply => [503, failure('SERVICE_UNAVAILABLE', message)]
const unsupported: Reply = [422, failure('VALIDATION_ERROR', 'Unsupported currency.')]

async function metrics(account: Account, search: URLSearchParams): Promise<Reply> {
  const { timezone, values } = reportingValues(account, search)
  const asOf = new Date().toISOString()
  const brand = search.get('payment_brand') === null ? 'all' : 'brand'
  const [row] = await rows(`peer:metrics:${brand}`, METRICS[brand], values)
  if (!row.supported) return unsupported
  if (Number(row.paid_without_amount) > 0) return unavailable('A paid amount is missing.')
  return [
    200,
    success({
      environment: search.get('environment'),
      currency: search.get('currency'),
      timezone,
      from: withOffset(row.from_wall, row.from_offset),
      to: withOffset(row.to_wall, row.to_offset),
      as_of: asOf,
      date_basis: 'created_at',
      ...figures(row),
    }),
  ]
}

async function chart(account: Account, search: URLSearchParams): Promise<Reply> {
  const { timezone, values } = reportingValues(account, search)
  const interval = search.get('interval')
  const asOf = new Date().toISOString()
  const brand = search.get('payment_brand') === null ? 'all' : 'brand'
  const buckets = await rows(`peer:chart:${brand}`, CHART[brand], [...values, interval])
  const [first] = buckets
  if (!first.supported) return unsupported
  if (Number(first.all_paid_without_amount) > 0) return unavailable('A paid amount is missing.')
  return [
    200,
    success({
      environment: search.get('environment'),
      currency: search.get('currency'),
      timezone,
      interval,
      date_basis: 'created_at',
      from: withOffset(first.from_wall, first.from_offset),
      to: withOffset(first.to_wall, first.to_offset),
      as_of: asOf,
      totals: figures(first, 'all_'),
      buckets: buckets.map((bucket) => ({
        period: bucket.period,
        from: withOffset(bucket.bucket_from_wall, bucket.bucket_from_offset),
        to: withOffset(bucket.bucket_to_wall, bucket.bucket_to_offset),
        partial: bucket.partial,
        ...figures(bucket),
      })),
    }),
  ]
}

// ---------------------------------------------------------------- OAuth

const CLIENT = `select id, kind, secret_hash, revoked_at from oauth_clients where id = $1`
// The same insert as the service's: the client row re-checked under FOR SHARE, so
// that no token outlives a revocation committed meanwhile (the contract's rule, and
// the same work; the bare insert lacked it).
const ISSUE = `insert into oauth_access_tokens
    (tokenable_id, type, name, hash, abilities, created_at, updated_at, last_used_at, expires_at)
  select c.id, 'machine', null, $2, $3, $4, $4, null, $5
    from oauth_clients c
   where c.id = $1 and c.kind = 'machine' and c.secret_hash = $6 and c.revoked_at is null
     for share of c
  returning id`

async function oauthToken(request: http.IncomingMessage, response: http.ServerResponse) {
  const ip = request.socket.remoteAddress ?? '-'
  if (!(await consume(`oauthToken:${ip}`, 30))) {
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
  const [client] = await rows('peer:client', CLIENT, [clientId])
  const presented = 'hmac-sha256$' + createHmac('sha256', APP_KEY).update(secret).digest('hex')
  if (!client || !client.secret_hash || client.revoked_at || client.kind !== 'machine') {
    return invalidClient()
  }
  if (!sameText(client.secret_hash, presented)) return invalidClient()

  const tokenSecret = randomBytes(30).toString('base64url')
  const now = new Date()
  const [issued] = await rows('peer:issue', ISSUE, [
    client.id,
    createHash('sha256').update(tokenSecret).digest('hex'),
    JSON.stringify(['merchant-api']),
    now,
    new Date(now.getTime() + TOKEN_TTL_SECONDS * 1000),
    client.secret_hash,
  ])
  if (!issued) return invalidClient()
  const value = `mat_${Buffer.from(String(issued.id)).toString('base64url')}.${Buffer.from(tokenSecret).toString('base64url')}`
  send(response, 200, { token_type: 'Bearer', expires_in: TOKEN_TTL_SECONDS, access_token: value })
}

// ---------------------------------------------------------------- dispatch

const COLLECTIONS = '/api/v1/portal/collections'
const TRANSACTION = /^\/api\/v1\/portal\/collections\/transactions\/([1-9][0-9]{0,15})(\/history)?$/

async function portal(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  url: URL
): Promise<void> {
  const account = await authenticate(request, response)
  if (!account) return
  const search = url.searchParams
  const notFound = () => send(response, 404, failure('NOT_FOUND', 'Not found.'))
  if (url.pathname === '/api/v1/portal/me') return send(response, 200, profile(account))
  if (url.pathname === `${COLLECTIONS}/transactions`) {
    return send(response, 200, await transactions(account, search))
  }
  if (url.pathname === `${COLLECTIONS}/metrics`)
    return send(response, ...(await metrics(account, search)))
  if (url.pathname === `${COLLECTIONS}/charts`)
    return send(response, ...(await chart(account, search)))
  const [, id, history] = TRANSACTION.exec(url.pathname) ?? []
  if (!id) return notFound()
  const body = history
    ? await historyPage(
        pool,
        {
          userId: account.user_id,
          merchantId: account.merchant_id,
          role: account.role_name,
          ip: request.socket.remoteAddress ?? null,
        },
        id,
        search
      )
    : await detail(account, id, search)
  return body ? send(response, 200, body) : notFound()
}

http
  .createServer((request, response) => {
    const url = new URL(request.url!, 'http://peer')
    const handler =
      request.method === 'GET' && url.pathname.startsWith('/api/v1/portal/')
        ? () => portal(request, response, url)
        : request.method === 'POST' && url.pathname === '/oauth/token'
          ? () => oauthToken(request, response)
          : request.method === 'POST' && url.pathname === '/api/v1/auth/login'
            ? () => login({ rows, consume, appKey: APP_KEY }, request, response)
            : async () => send(response, url.pathname === '/health/live' ? 200 : 404, {})
    handler().catch((error) => {
      // A load generator that stops mid-body aborts the request: nothing to report.
      if (request.errored && request.destroyed) return
      console.error(error)
      if (!response.headersSent) send(response, 500, failure('SERVER_ERROR', 'Error.'))
    })
  })
  .listen(PORT, '127.0.0.1')

// Exit on the bench's SIGTERM through process.exit, so that --cpu-prof writes its profile.
process.on('SIGTERM', () => process.exit(0))
