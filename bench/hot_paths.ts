/*
| Hot paths side by side (issues 15 and 24): the production build against a
| hand-written peer (bench/peers/plain_server.ts, `node:http` + `pg`, every statement
| prepared, the same round trips) on ONE database, and login against a bare
| `crypto.scrypt` loop at the configured cost and the same concurrency. For each route:
| the bodies are checked byte-identical (`as_of` aside), then single requests one at a
| time (ours and the peer's alternating, p50), then autocannon rounds alternating
| (ours, peer), (peer, ours), ... and writes per request. Prints a Markdown table.
|
|   portal_me     GET  /api/v1/portal/me
|   list_first    GET  .../collections/transactions?environment=live (first page)
|   list_month    the same, one month (`from`/`to`)
|   list_status   the same, `status=PAID`
|   detail        GET  .../collections/transactions/{id}
|   history       GET  .../collections/transactions/{id}/history (demo evidence)
|   metrics_year  GET  .../collections/metrics, one year (Asia/Manila)
|   chart_day     GET  .../collections/charts, 366 days by day
|   chart_month   GET  .../collections/charts, ten years by month
|   oauth_token   POST /oauth/token (client lookup, HMAC check, token insert)
|   login         POST /api/v1/auth/login vs the scrypt loop (one verification), and
|                 the peer's own login (bench/peers/login_route.ts) vs both
|
| Dataset (kept between runs, loaded when missing): the demo data (`demo:seed`, whose
| transactions carry history evidence), and a merchant "Peer Bench Merchant" with
| bench/reporting_dataset.ts's `large` population (1,000,000 live PHP transactions
| over ten years), beside four noise merchants of 100,000 each.
|
| Usage (a scratch database; it is migrated and the demo data refreshed):
|   node ace build
|   DATABASE_URL=postgres://postgres@127.0.0.1:5432/portal_bench \
|     node --import=@poppinss/ts-exec bench/hot_paths.ts
|   # limiter store in Redis (ours and the peer): add REDIS_URL=redis://127.0.0.1:6379/11
| Knobs: BENCH_ROUNDS (3), BENCH_SECONDS (10), BENCH_CONNECTIONS (10),
|   BENCH_LOGIN_CONNECTIONS (4; "4,8" runs both), BENCH_SINGLE
|   (200 single requests each, or fewer once BENCH_SINGLE_SECONDS, 30, have passed
|   on a route; 5 at least), BENCH_WRITES (1; 0 skips the writes count),
|   BENCH_PORT (3390; peer +1), BENCH_ROUTES (every route above, comma-separated),
|   BENCH_NODE_ARGS (node flags of our server, e.g. --cpu-prof), BENCH_PEER_NODE_ARGS
|   (the peer's), BENCH_PEER_BUILD (another build of ours as the peer, below).
|   BENCH_SMOKE=1 or --smoke (CI): a bench merchant of 5,000 transactions
|   and one noise merchant of 1,000, one round of 1 s, no warm-up, 5 single requests, no writes
|   count (it waits twice 11 s per route), and a check that every route measured
|   something on both sides. BENCH_DATASET_ROWS and BENCH_NOISE_ROWS (1,000,000 and
|   100,000) size the data, e.g. for a run of login alone (BENCH_ROUTES=login).
|
| Login: each connection logs in as a bench user of its own (one per connection,
| created once), since overlapping checks of one password against one stored hash
| share a hash in the service.
| Login's CPU (issue 38 › goal 4): during our login rounds, the CPU time of our server
| process (its hashing threads included, /proc/PID/stat), of the database's
| PostgreSQL backends (those connected during the round) and of this process
| (autocannon); during the scrypt loop's rounds, this process's CPU per hash. Printed
| per login after the table: the server's CPU beside its scrypt is its total less one
| bare hash. Beside it, the ratio of each pair of rounds (ours, then the loop's, or the
| other way round) on its own: the spread one run's verdict carries.
| The peer's login runs between the two (the middle of each trio of rounds), its
| process's CPU per login printed the same way: how near 0.9x of the loop the best
| plain implementation comes on the host, and ours against it.
|
| Writes per request: the sum of n_tup_ins + n_tup_upd + n_tup_del over the
| database's tables (pg_stat_user_tables) across a counting phase of a fixed number
| of requests per server, read after the idle backends have flushed (PostgreSQL 15
| flushes table statistics of an idle backend within 10 s).
*/
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createHmac, randomBytes, scrypt } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import type autocannon from 'autocannon'
import pg from 'pg'
import { cannon, percentile, type CannonRound as Round } from './load_tools.js'
import { DATASETS, loadReportingDataset } from './reporting_dataset.js'
import { expectFigures, sized } from './smoke.js'
import { deploymentCommand } from './production_server.js'

const DATABASE_URL = process.env.DATABASE_URL
if (!DATABASE_URL) throw new Error('Set DATABASE_URL to a scratch database')
const ROOT = new URL('../', import.meta.url).pathname
if (!existsSync(`${ROOT}build/bin/server.js`)) throw new Error('Run `node ace build` first')

const ROUTE_NAMES = [
  'portal_me',
  'list_first',
  'list_month',
  'list_status',
  'detail',
  'history',
  'metrics_year',
  'chart_day',
  'chart_month',
  'oauth_token',
  'login',
]
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(3, 1))
const SECONDS = Number(process.env.BENCH_SECONDS ?? sized(10, 1))
// autocannon ends a run on a whole second, so a smoke run has no warm-up at all.
const WARM_UP_SECONDS = sized(3, 0)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const LOGIN_CONNECTIONS = (process.env.BENCH_LOGIN_CONNECTIONS ?? '4').split(',').map(Number)
const SINGLE = Number(process.env.BENCH_SINGLE ?? sized(200, 5))
const SINGLE_SECONDS = Number(process.env.BENCH_SINGLE_SECONDS ?? 30)
const COUNT_WRITES = (process.env.BENCH_WRITES ?? sized('1', '0')) !== '0'
const PORT = Number(process.env.BENCH_PORT ?? 3390)
const PEER_PORT = PORT + 1
/*
| BENCH_PEER_BUILD: the peer is another production build of this service (say, of the
| commit before a reshaping, `npm run build` in a worktree and `npm ci --omit=dev` in its
| build/), started from that folder on the same database, instead of plain_server.ts;
| login then runs against that build too, not the scrypt loop. Answers must still be
| byte-identical: a reshaping that changed one fails the run.
*/
const PEER_BUILD = process.env.BENCH_PEER_BUILD
const ROUTES = (process.env.BENCH_ROUTES ?? ROUTE_NAMES.join(',')).split(',')
const COUNTED_REQUESTS = 400
// BENCH_DATASET_ROWS / BENCH_NOISE_ROWS: smaller data where only login is measured.
const BENCH_ROWS = Number(process.env.BENCH_DATASET_ROWS ?? sized(DATASETS.large.rows, 5_000))
const NOISE_MERCHANTS = sized(4, 1)
const NOISE_ROWS = Number(process.env.BENCH_NOISE_ROWS ?? sized(100_000, 1_000))
const ours = `http://127.0.0.1:${PORT}`
const peer = `http://127.0.0.1:${PEER_PORT}`
const env: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: 'production',
  APP_KEY: process.env.APP_KEY ?? 'bench-app-key-0123456789abcdef0123456789',
  PORT: String(PORT),
  PEER_PORT: String(PEER_PORT),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  // Every limit is enforced (one limiter write per request) but never refuses.
  RATE_LIMIT_MULTIPLIER: '100000',
  // As README › Deployment runs it (glibc's malloc arenas).
  ...deploymentCommand(`${ROOT}package.json`).environment,
}
const loadAtStart = os.loadavg()
/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100

const ace = (args: string[], input?: string) =>
  execFileSync('node', ['ace', ...args], { env, encoding: 'utf8', cwd: ROOT, input })
const lastJson = (output: string) => JSON.parse(output.trim().split('\n').pop()!)
ace(['migration:run', '--force'])
const demo = lastJson(ace(['demo:seed']))

const sql = new pg.Client({ connectionString: DATABASE_URL })
await sql.connect()

/** A merchant by its contact email, created (ace merchant:create) when missing. */
async function benchMerchant(name: string, email: string): Promise<number> {
  const found = await sql.query('select id from merchants where email = $1', [email])
  if (found.rows[0]) return Number(found.rows[0].id)
  return Number(lastJson(ace(['merchant:create', `--name=${name}`, `--email=${email}`])).id)
}

const BENCH_EMAIL = 'peer-bench@merchant.test'
const benchMerchantId = await benchMerchant('Peer Bench Merchant', BENCH_EMAIL)
const benchPassword = 'Peer-bench-password-1'
const developer = await sql.query('select id from users where email = $1', [BENCH_EMAIL])
if (!developer.rows[0]) {
  ace(
    [
      'user:create',
      `--merchant=${benchMerchantId}`,
      `--email=${BENCH_EMAIL}`,
      '--first-name=Peer',
      '--last-name=Bench',
      '--role=developer',
    ],
    `${benchPassword}\n`
  )
}
/*
| Login users, one per login connection: the service shares one hash among overlapping
| checks of one password against one stored hash (app/auth/password_hashing.ts), so
| connections all logging in as one user measured shared hashes, not one per login.
*/
const LOGIN_PASSWORD = 'Login-bench-password-1'
const loginUsers = Array.from(
  { length: ROUTES.includes('login') ? Math.max(...LOGIN_CONNECTIONS) : 0 },
  (_, index) => `login-bench-${index + 1}@merchant.test`
)
for (const email of loginUsers) {
  const found = await sql.query('select id from users where email = $1', [email])
  if (found.rows[0]) continue
  ace(
    [
      'user:create',
      `--merchant=${benchMerchantId}`,
      `--email=${email}`,
      '--first-name=Login',
      '--last-name=Bench',
      '--role=developer',
    ],
    `${LOGIN_PASSWORD}\n`
  )
}
console.error(JSON.stringify(await loadReportingDataset(sql, benchMerchantId, 'large', BENCH_ROWS)))
// Noise: four merchants of 100,000 transactions each, so that every read scopes by merchant.
for (let index = 1; index <= NOISE_MERCHANTS; index++) {
  const id = await benchMerchant(`Peer Bench Noise ${index}`, `peer-noise-${index}@merchant.test`)
  const existing = await sql.query(
    'select count(*)::int as n from transactions where merchant_id = $1',
    [id]
  )
  if (existing.rows[0].n > 0) continue
  await sql.query(
    `insert into transactions (merchant_id, environment, merchant_transaction_id, amount, currency,
                               payment_status, payment_brand, created_at, updated_at)
     select $1, 'live', 'NOISE-' || g, round((1 + random() * 999)::numeric, 2), 'PHP',
            (array['PAID', 'PENDING', 'REJECTED'])[1 + g % 3], 'gcash', at, at
       from (select g, now() - random() * interval '10 years' as at
               from generate_series(1, $2::int) as g) as source`,
    [id, NOISE_ROWS]
  )
}
await sql.query('analyze transactions')

// A machine client of the demo merchant, its secret hashed as the service stores it.
const machineSecret = randomBytes(32).toString('base64url')
const machineHash =
  'hmac-sha256$' + createHmac('sha256', env.APP_KEY!).update(machineSecret).digest('hex')
const inserted = await sql.query(
  `insert into oauth_clients (name, kind, secret_hash, created_at, updated_at)
   values ('bench', 'machine', $1, now(), now()) returning id`,
  [machineHash]
)
const machineClientId = Number(inserted.rows[0].id)
await sql.query(
  // The label is lowercase ASCII, so its normalized form (normalizeLabel) is itself.
  `insert into merchant_oauth_clients
     (merchant_id, oauth_client_id, label, label_normalized, is_active, created_at, updated_at)
   values ($1, $2, $3, $4, true, now(), now())`,
  [demo.merchant.id, machineClientId, `bench-${machineClientId}`, `bench-${machineClientId}`]
)

const children: ChildProcess[] = []
function start(args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const child = spawn('node', args, {
    env: { ...env, ...extraEnv },
    cwd,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  children.push(child)
  return child
}
const stopAll = () => children.forEach((child) => child.kill('SIGTERM'))
process.on('exit', stopAll)

async function waitLive(base: string) {
  for (let attempt = 0; attempt < 300; attempt++) {
    const live = await fetch(`${base}/health/live`).catch(() => null)
    if (live?.ok) return
    await delay(100)
  }
  throw new Error(`${base} did not start`)
}

type Target = 'ours' | 'peer'

function summary(rounds: Round[]) {
  const latencies = rounds.flatMap((round) => round.latencies)
  const requests = rounds.reduce((sum, round) => sum + round.requests, 0)
  const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0)
  return {
    perSecond: requests / seconds,
    p50: percentile(latencies, 50) ?? 0,
    p95: percentile(latencies, 95) ?? 0,
    p99: percentile(latencies, 99) ?? 0,
    non2xx: rounds.reduce((sum, round) => sum + round.non2xx, 0),
  }
}

async function tupleWrites(): Promise<number> {
  await sql.query('select pg_stat_clear_snapshot()')
  const { rows } = await sql.query(
    'select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint as writes from pg_stat_user_tables'
  )
  return Number(rows[0].writes)
}

/** Tuple writes per request over `amount` requests, read after the statistics flush. */
async function writesPerRequest(
  options: autocannon.Options,
  amount = COUNTED_REQUESTS
): Promise<number | string> {
  if (!COUNT_WRITES) return '-'
  await delay(11_000)
  const before = await tupleWrites()
  const round = await cannon({ ...options, amount })
  await delay(11_000)
  return +(((await tupleWrites()) - before) / round.requests).toFixed(2)
}

/** Milliseconds of one request (body read), and the body; throws unless 200. */
async function single(url: string, init: RequestInit) {
  const started = performance.now()
  const response = await fetch(url, init)
  const text = await response.text()
  const elapsed = performance.now() - started
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${text}`)
  return { elapsed, text }
}

const results: string[] = []
/** What each route measured, for the smoke run's check. */
const measured: Record<string, number | null> = {}
const load = (figures = os.loadavg()) => figures.map((value) => value.toFixed(1)).join(' / ')
const store = process.env.REDIS_URL ? 'Redis' : 'PostgreSQL'
const ms = (value: number | null) => (value === null ? '-' : value.toFixed(2))

/** The body as compared: `as_of` (the moment of the answer) masked. */
const comparable = (text: string) => text.replace(/"as_of":"[^"]*"/g, '"as_of":"-"')

/**
 * Waits (two minutes at most) until no statement but this client's runs in the
 * database: a peer's heavy list or chart statements outlive autocannon's timeouts, and
 * measured the next route's rounds under their load (the oauth row of 2026-11-26 read
 * 0.75x at load average 5.6, 0.89-0.90x alone).
 */
async function untilDatabaseIdle() {
  const started = performance.now()
  while (performance.now() - started < 120_000) {
    const { rows } = await sql.query(
      `select count(*)::int as active from pg_stat_activity
        where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`
    )
    if (rows[0].active === 0) return
    await delay(200)
  }
}

/**
 * One route, ours against the peer: the bodies first (byte-identical but for `as_of`;
 * `check` replaces that for routes whose answers differ by design), then single
 * requests alternating, then autocannon rounds alternating, then writes.
 */
/** CPU milliseconds (user + system) a process has used, from /proc; 0 once it is gone. */
function processCpuMs(pid: number | string | undefined) {
  try {
    // The fields after the command name: utime and stime are the 12th and 13th, in ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return 0
  }
}

/** A server's CPU ms so far: ours is the first process started, the peer the second. */
const serverCpuMs = (target: Target) => processCpuMs(children[target === 'ours' ? 0 : 1]?.pid)

async function compare(
  route: string,
  options: (target: Target) => autocannon.Options,
  check?: () => Promise<void>
) {
  await untilDatabaseIdle()
  const request = (target: Target) => {
    const { url, method, headers, body } = options(target)
    return { url: url as string, init: { method, headers, body } as RequestInit }
  }
  if (check) {
    await check()
  } else {
    const [a, b] = await Promise.all(
      (['ours', 'peer'] as const).map((target) => {
        const { url, init } = request(target)
        return single(url, init)
      })
    )
    if (comparable(a.text) !== comparable(b.text)) {
      throw new Error(`${route}: bodies differ\nours: ${a.text}\npeer: ${b.text}`)
    }
  }
  // A short warm-up each, then single requests alternating, then rounds alternating
  // (ours, peer), (peer, ours), ...
  if (WARM_UP_SECONDS > 0) {
    await cannon({ ...options('ours'), duration: WARM_UP_SECONDS })
    await cannon({ ...options('peer'), duration: WARM_UP_SECONDS })
  }
  const singles: Record<Target, number[]> = { ours: [], peer: [] }
  if (!check) {
    // Alternating pairs until SINGLE each, or SINGLE_SECONDS for the slow routes.
    const until = performance.now() + SINGLE_SECONDS * 1000
    for (let index = 0; index < SINGLE && (index < 5 || performance.now() < until); index++) {
      const order: Target[] = index % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours']
      for (const target of order) {
        const { url, init } = request(target)
        const { elapsed } = await single(url, init)
        singles[target].push(elapsed)
      }
    }
  }
  const rounds: Record<Target, Round[]> = { ours: [], peer: [] }
  // Each server's own CPU over its rounds: a cost per request that the machine's other
  // load moves far less than it moves req/s.
  const cpu: Record<Target, number> = { ours: 0, peer: 0 }
  for (let index = 0; index < ROUNDS; index++) {
    const order: Target[] = index % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours']
    for (const target of order) {
      const before = serverCpuMs(target)
      rounds[target].push(await cannon({ ...options(target), duration: SECONDS }))
      cpu[target] += serverCpuMs(target) - before
    }
  }
  const cpuPerRequest = (target: Target) => {
    const requests = rounds[target].reduce((sum, round) => sum + round.requests, 0)
    return requests ? (cpu[target] / requests).toFixed(3) : '-'
  }
  const writes = {
    ours: await writesPerRequest(options('ours')),
    peer: await writesPerRequest(options('peer')),
  }
  const a = summary(rounds.ours)
  const b = summary(rounds.peer)
  if (a.non2xx || b.non2xx) console.error(`${route}: non-2xx ours ${a.non2xx}, peer ${b.non2xx}`)
  const p50 = { ours: singleP50(singles.ours), peer: singleP50(singles.peer) }
  measured[`${route} ours req/s`] = a.perSecond
  measured[`${route} peer req/s`] = b.perSecond
  if (!check) {
    measured[`${route} ours single p50`] = p50.ours
    measured[`${route} peer single p50`] = p50.peer
  }
  results.push(
    `| ${route} | ${store} | ${CONNECTIONS} | ${a.perSecond.toFixed(1)} | ${b.perSecond.toFixed(1)} | **${ratio(a.perSecond, b.perSecond)}** | ${cpuPerRequest('ours')} / ${cpuPerRequest('peer')} | ${ms(p50.ours)} / ${ms(p50.peer)} | ${a.p50} / ${a.p99} | ${b.p50} / ${b.p99} | ${writes.ours} / ${writes.peer} | ${load()} |`
  )
  console.error(results.at(-1))
}

/** ours ÷ peer req/s; a peer that completed nothing in the rounds has no ratio. */
const ratio = (mine: number, theirs: number) =>
  theirs === 0 ? 'peer completed none' : `${(mine / theirs).toFixed(2)}x`

/** The median of single-request times (ms, two decimals), null when none were taken. */
function singleP50(values: number[]) {
  if (values.length === 0) return null
  const sorted = [...values].sort((x, y) => x - y)
  return sorted[Math.floor(sorted.length / 2)]
}

try {
  start(
    [
      ...deploymentCommand(`${ROOT}package.json`).flags,
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      'bin/server.js',
    ],
    `${ROOT}build`
  )
  const peerNodeArgs = process.env.BENCH_PEER_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  if (PEER_BUILD) {
    // Another build of ours runs as its own start script says.
    const asDeployed = deploymentCommand(`${PEER_BUILD}/package.json`)
    start([...asDeployed.flags, ...peerNodeArgs, 'bin/server.js'], PEER_BUILD, {
      ...asDeployed.environment,
      PORT: String(PEER_PORT),
    })
  } else start([...peerNodeArgs, '--import=@poppinss/ts-exec', 'bench/peers/plain_server.ts'], ROOT)
  await Promise.all([waitLive(ours), waitLive(peer)])

  const appCredentials = Buffer.from(
    `${demo.portal_client.client_id}:${demo.portal_client.client_secret}`
  ).toString('base64')
  const loginRequest = (username: string, password: string) => ({
    method: 'POST' as const,
    headers: {
      'content-type': 'application/json',
      'x-service-application': 'merchant_portal',
      'authorization': `Basic ${appCredentials}`,
    },
    body: JSON.stringify({ username, password }),
  })
  const adminLogin = loginRequest(demo.administrator.username, demo.administrator.password)
  const patOf = async (request: RequestInit) => {
    const login = await fetch(`${ours}/api/v1/auth/login`, request)
    if (login.status !== 200) throw new Error(`login answered ${login.status}`)
    return ((await login.json()) as { data: { access_token: string } }).data.access_token
  }
  const administrator = { authorization: `Bearer ${await patOf(adminLogin)}` }
  const benchDeveloper = {
    authorization: `Bearer ${await patOf(loginRequest(BENCH_EMAIL, benchPassword))}`,
  }

  const detailRow = await sql.query(
    `select id from transactions where merchant_id = $1 and environment = 'live'
      order by id offset $2 limit 1`,
    [benchMerchantId, Math.floor(BENCH_ROWS / 2)]
  )
  const historyRow = await sql.query(
    `select transaction_id, environment from exchange_evidence where merchant_id = $1
      group by 1, 2 order by count(*) desc, 1 limit 1`,
    [demo.merchant.id]
  )
  const collections = '/api/v1/portal/collections'
  const reporting = 'environment=live&currency=PHP'
  const at = (text: string) => encodeURIComponent(text)
  const reads: Record<string, { path: string; headers: Record<string, string> }> = {
    portal_me: { path: '/api/v1/portal/me', headers: administrator },
    list_first: { path: `${collections}/transactions?environment=live`, headers: benchDeveloper },
    list_month: {
      path: `${collections}/transactions?environment=live&from=${at('2026-10-01T00:00:00+08:00')}&to=${at('2026-11-01T00:00:00+08:00')}`,
      headers: benchDeveloper,
    },
    list_status: {
      path: `${collections}/transactions?environment=live&status=PAID`,
      headers: benchDeveloper,
    },
    detail: {
      path: `${collections}/transactions/${detailRow.rows[0].id}?environment=live`,
      headers: benchDeveloper,
    },
    history: {
      path: `${collections}/transactions/${historyRow.rows[0].transaction_id}/history?environment=${historyRow.rows[0].environment}`,
      headers: administrator,
    },
    metrics_year: {
      path: `${collections}/metrics?${reporting}&from=${at('2025-11-22T00:00:00+08:00')}&to=${at('2026-11-22T00:00:00+08:00')}`,
      headers: benchDeveloper,
    },
    chart_day: {
      path: `${collections}/charts?${reporting}&interval=day&from=${at('2025-11-21T00:00:00+08:00')}&to=${at('2026-11-22T00:00:00+08:00')}`,
      headers: benchDeveloper,
    },
    chart_month: {
      path: `${collections}/charts?${reporting}&interval=month&from=${at('2016-12-01T00:00:00+08:00')}&to=${at('2026-12-01T00:00:00+08:00')}`,
      headers: benchDeveloper,
    },
  }
  for (const [name, read] of Object.entries(reads)) {
    if (!ROUTES.includes(name)) continue
    await compare(`GET ${read.path.split('?')[0]} (${name})`, (target) => ({
      url: `${target === 'ours' ? ours : peer}${read.path}`,
      headers: read.headers,
      connections: CONNECTIONS,
      // The peer's unbounded counts and scans can take longer than autocannon's 10 s.
      timeout: 120,
    }))
  }

  if (ROUTES.includes('oauth_token')) {
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: String(machineClientId),
      client_secret: machineSecret,
    }).toString()
    const request = {
      method: 'POST' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    }
    await compare(
      'POST /oauth/token',
      (target) => ({
        url: `${target === 'ours' ? ours : peer}/oauth/token`,
        ...request,
        connections: CONNECTIONS,
      }),
      // Each answer carries a new token: the shape and a working token are compared.
      async () => {
        for (const base of [ours, peer]) {
          const response = await fetch(`${base}/oauth/token`, request)
          const grant = (await response.json()) as Record<string, unknown>
          const keys = Object.keys(grant).sort().join(',')
          if (keys !== 'access_token,expires_in,token_type') throw new Error(`grant: ${keys}`)
          // A token issued by one must authenticate on the service (the same stored form).
          const whoami = await fetch(`${ours}/api/v1/merchant-api/whoami`, {
            headers: { authorization: `Bearer ${grant.access_token}` },
          })
          if (whoami.status !== 200) throw new Error(`${base}'s token: whoami ${whoami.status}`)
        }
      }
    )
  }

  const cpuLines: string[] = []
  const plainCpuLines: string[] = []
  if (ROUTES.includes('login') && !PEER_BUILD) await samePlainLogin()
  if (ROUTES.includes('login')) {
    for (const connections of LOGIN_CONNECTIONS) await compareLogin(connections)
  }

  /**
   * The plain peer's login answers what ours does: the same body but for the token and
   * its expiry, and a token that authenticates on the service (the same stored form).
   */
  async function samePlainLogin() {
    const request = loginRequest(loginUsers[0], LOGIN_PASSWORD)
    const answers: Array<{ message: string; data: Record<string, unknown> }> = []
    for (const base of [ours, peer]) {
      const response = await fetch(`${base}/api/v1/auth/login`, request)
      if (response.status !== 200) throw new Error(`${base}'s login: ${response.status}`)
      const answer = (await response.json()) as { message: string; data: Record<string, unknown> }
      const me = await fetch(`${ours}/api/v1/portal/me`, {
        headers: { authorization: `Bearer ${answer.data.access_token}` },
      })
      if (me.status !== 200) throw new Error(`${base}'s PAT: /portal/me ${me.status}`)
      const rest = { ...answer.data, access_token: undefined, expires_at: undefined }
      answers.push({ message: answer.message, data: rest })
    }
    const [mine, theirs] = answers.map((answer) => JSON.stringify(answer))
    if (mine !== theirs) throw new Error(`login bodies differ:\n${mine}\n${theirs}`)
  }

  /**
   * CPU ms of our server's threads by kind (their names in /proc: MainThread, WorkerThread
   * for the hashing threads, V8Worker for the compiler and the collector's helpers,
   * libuv-worker for the pool), so that a login's CPU beside its hash can be told apart.
   */
  function threadsCpuMs(pid: number) {
    const byKind = new Map<string, number>()
    let tasks: string[] = []
    try {
      tasks = readdirSync(`/proc/${pid}/task`)
    } catch {
      return byKind
    }
    for (const task of tasks) {
      try {
        const kind = readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim()
        byKind.set(kind, (byKind.get(kind) ?? 0) + processCpuMs(`${pid}/task/${task}`))
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return byKind
  }

  /** CPU ms of our server, of this database's backends (each by pid), and of this process. */
  async function cpuNow() {
    const { rows } = await sql.query(
      `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`
    )
    const backends = new Map<number, number>(
      rows.map((row: { pid: number }) => [row.pid, processCpuMs(row.pid)])
    )
    const self = process.cpuUsage()
    return {
      server: processCpuMs(children[0].pid!),
      threads: threadsCpuMs(children[0].pid!),
      backends,
      self: (self.user + self.system) / 1000,
    }
  }

  /** CPU ms used between two cpuNow() readings; a backend counts if it was there at both. */
  function cpuSpent(before: Awaited<ReturnType<typeof cpuNow>>, after: typeof before) {
    let backends = 0
    for (const [pid, used] of after.backends) {
      if (before.backends.has(pid)) backends += used - before.backends.get(pid)!
    }
    const threads = new Map<string, number>()
    for (const [kind, used] of after.threads) {
      threads.set(kind, used - (before.threads.get(kind) ?? 0))
    }
    return {
      server: after.server - before.server,
      threads,
      backends,
      self: after.self - before.self,
    }
  }

  async function compareLogin(connections: number) {
    await untilDatabaseIdle()
    // The configured cost (config/hash.ts): N=16384, r=8, p=1, 64-byte key.
    const scryptOnce = (salt: Buffer) =>
      new Promise<void>((resolve, reject) =>
        scrypt(
          demo.administrator.password,
          salt,
          64,
          { N: 16384, r: 8, p: 1, maxmem: 33554432 },
          (error) => (error ? reject(error) : resolve())
        )
      )
    const scryptLoop = async (seconds: number) => {
      const salt = randomBytes(16)
      const until = Date.now() + seconds * 1000
      let done = 0
      const latencies: number[] = []
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (Date.now() < until) {
            const started = performance.now()
            await scryptOnce(salt)
            latencies.push(performance.now() - started)
            done++
          }
        })
      )
      return { requests: done, seconds, non2xx: 0, latencies }
    }
    let clients = 0
    const loginOptions = {
      url: `${ours}/api/v1/auth/login`,
      ...adminLogin,
      connections,
      // Each connection logs in as a user of its own (loginUsers above).
      setupClient: (client: autocannon.Client) => {
        const username = loginUsers[clients++ % loginUsers.length]
        client.setBody(JSON.stringify({ username, password: LOGIN_PASSWORD }))
      },
    }
    // The plain peer's login (bench/peers/login_route.ts), unless another build is the peer.
    const plainOptions = { ...loginOptions, url: `${peer}/api/v1/auth/login` }
    if (WARM_UP_SECONDS > 0) {
      await cannon({ ...loginOptions, duration: WARM_UP_SECONDS })
      if (!PEER_BUILD) await cannon({ ...plainOptions, duration: WARM_UP_SECONDS })
    }
    const rounds: { ours: Round[]; scrypt: Round[]; plain: Round[] } = {
      ours: [],
      scrypt: [],
      plain: [],
    }
    const cpu = { server: 0, backends: 0, generator: 0, scryptLoop: 0, plain: 0, plainBackends: 0 }
    const serverThreads = new Map<string, number>()
    const oursRound = async () => {
      const before = await cpuNow()
      const round = await cannon({ ...loginOptions, duration: SECONDS })
      const spent = cpuSpent(before, await cpuNow())
      cpu.server += spent.server
      for (const [kind, used] of spent.threads) {
        serverThreads.set(kind, (serverThreads.get(kind) ?? 0) + used)
      }
      cpu.backends += spent.backends
      cpu.generator += spent.self
      rounds.ours.push(round)
    }
    const scryptRound = async () => {
      if (PEER_BUILD) {
        rounds.scrypt.push(
          await cannon({ ...loginOptions, url: `${peer}/api/v1/auth/login`, duration: SECONDS })
        )
        return
      }
      const before = process.cpuUsage()
      rounds.scrypt.push(await scryptLoop(SECONDS))
      const spent = process.cpuUsage(before)
      cpu.scryptLoop += (spent.user + spent.system) / 1000
    }
    const plainRound = async () => {
      if (PEER_BUILD) return
      const before = await cpuNow()
      const peerBefore = processCpuMs(children[1].pid)
      rounds.plain.push(await cannon({ ...plainOptions, duration: SECONDS }))
      cpu.plain += processCpuMs(children[1].pid) - peerBefore
      cpu.plainBackends += cpuSpent(before, await cpuNow()).backends
    }
    // The plain login between the two others, so that each pair's neighbours alternate.
    for (let index = 0; index < ROUNDS; index++) {
      if (index % 2 === 0) {
        await oursRound()
        await plainRound()
        await scryptRound()
      } else {
        await scryptRound()
        await plainRound()
        await oursRound()
      }
    }
    const writes = await writesPerRequest({ ...loginOptions }, 40)
    const a = summary(rounds.ours)
    const b = summary(rounds.scrypt)
    if (a.non2xx) console.error(`login: ${a.non2xx} non-2xx`)
    measured[`login at ${connections} ours req/s`] = a.perSecond
    measured[`login at ${connections} scrypt loop/s`] = b.perSecond
    results.push(
      `| POST /api/v1/auth/login vs ${PEER_BUILD ? `the build of ${PEER_BUILD}` : 'a bare crypto.scrypt loop'} | ${store} | ${connections} | ${a.perSecond.toFixed(1)} | ${b.perSecond.toFixed(1)} | **${ratio(a.perSecond, b.perSecond)}** | - | - | ${a.p50} / ${a.p99} | ${b.p50} / ${b.p99} | ${writes} / 0 | ${load()} |`
    )
    console.error(results.at(-1))
    const logins = rounds.ours.reduce((sum, round) => sum + round.requests, 0)
    const hashes = rounds.scrypt.reduce((sum, round) => sum + round.requests, 0)
    const perLogin = (spent: number) => (logins ? (spent / logins).toFixed(1) : '-')
    const scryptMs = hashes ? cpu.scryptLoop / hashes : 0
    const threadsLine = [...serverThreads]
      .sort((x, y) => y[1] - x[1])
      .map(([kind, used]) => `${kind} ${perLogin(used)}`)
      .join(', ')
    // Each pair of rounds, one after the other, as a ratio of its own: how far the verdict
    // of one run can move with the host (a run's ratio is of all its rounds together).
    const againstLoop = (list: Round[]) =>
      list
        .map((round, index) => {
          const loop = rounds.scrypt[index]
          return ratio(round.requests / round.seconds, loop.requests / loop.seconds)
        })
        .join(', ')
    const pairs = againstLoop(rounds.ours)
    cpuLines.push(
      `| ${connections} | ${perLogin(cpu.server)} | ${threadsLine} | ${scryptMs.toFixed(1)} | ${perLogin(cpu.server - scryptMs * logins)} | ${perLogin(cpu.backends)} | ${perLogin(cpu.generator)} | ${pairs} |`
    )
    if (PEER_BUILD) return
    const c = summary(rounds.plain)
    measured[`login at ${connections} plain peer req/s`] = c.perSecond
    results.push(
      `| POST /api/v1/auth/login: the plain peer's login vs a bare crypto.scrypt loop | ${store} | ${connections} | ${c.perSecond.toFixed(1)} | ${b.perSecond.toFixed(1)} | **${ratio(c.perSecond, b.perSecond)}** | - | - | ${c.p50} / ${c.p99} | ${b.p50} / ${b.p99} | - / 0 | ${load()} |`,
      `| POST /api/v1/auth/login vs the plain peer's login | ${store} | ${connections} | ${a.perSecond.toFixed(1)} | ${c.perSecond.toFixed(1)} | **${ratio(a.perSecond, c.perSecond)}** | - | - | ${a.p50} / ${a.p99} | ${c.p50} / ${c.p99} | ${writes} / - | ${load()} |`
    )
    console.error(results.at(-2))
    console.error(results.at(-1))
    const plainLogins = rounds.plain.reduce((sum, round) => sum + round.requests, 0)
    const perPlainLogin = (spent: number) => (plainLogins ? (spent / plainLogins).toFixed(1) : '-')
    const plainPairs = againstLoop(rounds.plain)
    plainCpuLines.push(
      `| ${connections} | ${perPlainLogin(cpu.plain)} | ${perPlainLogin(cpu.plain - scryptMs * plainLogins)} | ${perPlainLogin(cpu.plainBackends)} | ${plainPairs} |`
    )
  }

  const cpu = os.cpus()
  const counts = await sql.query(
    `select count(*)::int as total, count(*) filter (where merchant_id = $1)::int as bench
       from transactions`,
    [benchMerchantId]
  )
  console.log(
    `\n${new Date().toISOString().slice(0, 16)}Z, ${cpu.length} cores (${cpu[0]?.model.trim()}), ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}, ` +
      `${ROUNDS} alternating rounds of ${SECONDS} s, ${SINGLE} single requests each, ` +
      `limiter store ${store}; ${counts.rows[0].total} transactions (${counts.rows[0].bench} of the ` +
      `bench merchant); load average 1/5/15 min at start ${load(loadAtStart)}\n`
  )
  console.log(
    '| route | limiter store | connections | ours req/s | peer req/s | ratio | server CPU ms per request ours / peer | single p50 ms ours / peer | ours p50 / p99 ms | peer p50 / p99 ms | writes/request ours / peer | load avg 1/5/15 min at end |'
  )
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|')
  for (const line of results) console.log(line)
  if (cpuLines.length > 0) {
    console.log(
      "\nLogin's CPU per request, ms (our server's process with its hashing threads; a bare hash of the scrypt loop; PostgreSQL backends of this database; this process, autocannon):\n"
    )
    console.log(
      '| connections | server per login | by thread (WorkerThread: hashing) | bare scrypt per hash | server beside its scrypt | PostgreSQL backends per login | load generator per login | ratio of each pair of rounds |'
    )
    console.log('|---|---|---|---|---|---|---|---|')
    for (const line of cpuLines) console.log(line)
  }
  if (plainCpuLines.length > 0) {
    console.log(
      "\nThe plain peer's login, CPU per login, ms (its process, hashes on libuv's pool included; PostgreSQL backends of this database):\n"
    )
    console.log(
      '| connections | peer process per login | beside its scrypt | PostgreSQL backends per login | plain ÷ loop, each pair of rounds |'
    )
    console.log('|---|---|---|---|---|')
    for (const line of plainCpuLines) console.log(line)
  }
  expectFigures('hot_paths', measured)
} finally {
  await sql.end()
  stopAll()
}
