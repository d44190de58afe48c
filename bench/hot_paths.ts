/*
| Hot paths side by side (issue 15): the production build against a hand-written
| peer (bench/peers/plain_server.ts, `node:http` + `pg`) on ONE database, in
| alternating autocannon rounds, and login against a bare `crypto.scrypt` loop at
| the configured cost and the same concurrency. Prints a Markdown table: req/s,
| p50/p95/p99, the peer's figures, the ratio, writes per request.
|
|   GET  /api/v1/portal/me   vs the peer (same checks, same body; checked equal)
|   POST /oauth/token        vs the peer (client lookup, HMAC check, token insert)
|   POST /api/v1/auth/login  vs scrypt loop (one verification per iteration)
|
| Usage (the database is migrated and the demo data refreshed: a scratch database):
|   npm run build
|   DATABASE_URL=postgres://postgres@127.0.0.1:5432/portal_bench \
|     node --import=@poppinss/ts-exec bench/hot_paths.ts
|   # limiter store in Redis (ours and the peer): add REDIS_URL=redis://127.0.0.1:6379/11
| Knobs: BENCH_ROUNDS (3), BENCH_SECONDS (10), BENCH_CONNECTIONS (10),
|   BENCH_LOGIN_CONNECTIONS (4 = UV_THREADPOOL_SIZE), BENCH_PORT (3390; peer +1),
|   BENCH_ROUTES (portal_me,oauth_token,login).
|
| Writes per request: the sum of n_tup_ins + n_tup_upd + n_tup_del over the
| database's tables (pg_stat_user_tables) across a counting phase of a fixed number
| of requests per server, read after the idle backends have flushed (PostgreSQL 15
| flushes table statistics of an idle backend within 10 s).
*/
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createHmac, randomBytes, scrypt } from 'node:crypto'
import { existsSync } from 'node:fs'
import os from 'node:os'
import { isDeepStrictEqual } from 'node:util'
import { setTimeout as delay } from 'node:timers/promises'
import type autocannon from 'autocannon'
import pg from 'pg'
import { cannon, type CannonRound as Round } from './load_tools.js'

const DATABASE_URL = process.env.DATABASE_URL
if (!DATABASE_URL) throw new Error('Set DATABASE_URL to a scratch database')
const ROOT = new URL('../', import.meta.url).pathname
if (!existsSync(`${ROOT}build/bin/server.js`)) throw new Error('Run `npm run build` first')

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const LOGIN_CONNECTIONS = Number(process.env.BENCH_LOGIN_CONNECTIONS ?? 4)
const PORT = Number(process.env.BENCH_PORT ?? 3390)
const PEER_PORT = PORT + 1
const ROUTES = (process.env.BENCH_ROUTES ?? 'portal_me,oauth_token,login').split(',')
const COUNTED_REQUESTS = 400
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
}

const ace = (...args: string[]) =>
  execFileSync('node', ['ace', ...args], { env, encoding: 'utf8', cwd: ROOT })
ace('migration:run', '--force')
const demo = JSON.parse(ace('demo:seed').trim().split('\n').pop()!)

const sql = new pg.Client({ connectionString: DATABASE_URL })
await sql.connect()

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
function start(args: string[], cwd: string) {
  const child = spawn('node', args, { env, cwd, stdio: ['ignore', 'inherit', 'inherit'] })
  children.push(child)
  return child
}
const stopAll = () => children.forEach((child) => child.kill('SIGTERM'))
process.on('exit', stopAll)

async function waitLive(base: string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const live = await fetch(`${base}/health/live`).catch(() => null)
    if (live?.ok) return
    await delay(100)
  }
  throw new Error(`${base} did not start`)
}

type Target = 'ours' | 'peer'

function summary(rounds: Round[]) {
  const latencies = rounds.flatMap((round) => round.latencies).sort((a, b) => a - b)
  const at = (p: number) =>
    latencies.length
      ? +latencies[
          Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))
        ].toFixed(1)
      : 0
  const requests = rounds.reduce((sum, round) => sum + round.requests, 0)
  const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0)
  return {
    perSecond: requests / seconds,
    p50: at(50),
    p95: at(95),
    p99: at(99),
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
): Promise<number> {
  await delay(11_000)
  const before = await tupleWrites()
  const round = await cannon({ ...options, amount })
  await delay(11_000)
  return +(((await tupleWrites()) - before) / round.requests).toFixed(2)
}

const results: string[] = []
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ')
const store = process.env.REDIS_URL ? 'Redis' : 'PostgreSQL'

async function compare(
  route: string,
  options: (target: Target) => autocannon.Options,
  check: () => Promise<void>
) {
  await check()
  const rounds: Record<Target, Round[]> = { ours: [], peer: [] }
  // A short warm-up each, then alternate (ours, peer), (peer, ours), ...
  await cannon({ ...options('ours'), duration: 3 })
  await cannon({ ...options('peer'), duration: 3 })
  for (let index = 0; index < ROUNDS; index++) {
    const order: Target[] = index % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours']
    for (const target of order) {
      rounds[target].push(await cannon({ ...options(target), duration: SECONDS }))
    }
  }
  const writes = {
    ours: await writesPerRequest(options('ours')),
    peer: await writesPerRequest(options('peer')),
  }
  const a = summary(rounds.ours)
  const b = summary(rounds.peer)
  if (a.non2xx || b.non2xx) console.error(`${route}: non-2xx ours ${a.non2xx}, peer ${b.non2xx}`)
  results.push(
    `| ${route} | ${store} | ${CONNECTIONS} | ${a.perSecond.toFixed(0)} | ${a.p50} / ${a.p95} / ${a.p99} | ${writes.ours} | hand-written node:http + pg | ${b.perSecond.toFixed(0)} | ${b.p50} / ${b.p95} / ${b.p99} | ${writes.peer} | **${(a.perSecond / b.perSecond).toFixed(2)}x** | ${load()} |`
  )
  console.error(results.at(-1))
}

try {
  start(['bin/server.js'], `${ROOT}build`)
  start(['--import=@poppinss/ts-exec', 'bench/peers/plain_server.ts'], ROOT)
  await Promise.all([waitLive(ours), waitLive(peer)])

  const appCredentials = Buffer.from(
    `${demo.portal_client.client_id}:${demo.portal_client.client_secret}`
  ).toString('base64')
  const loginRequest = {
    method: 'POST' as const,
    headers: {
      'content-type': 'application/json',
      'x-service-application': 'merchant_portal',
      'authorization': `Basic ${appCredentials}`,
    },
    body: JSON.stringify({
      username: demo.administrator.username,
      password: demo.administrator.password,
    }),
  }
  const login = await fetch(`${ours}/api/v1/auth/login`, loginRequest)
  if (login.status !== 200) throw new Error(`login answered ${login.status}`)
  const pat = ((await login.json()) as { data: { access_token: string } }).data.access_token

  if (ROUTES.includes('portal_me')) {
    const headers = { authorization: `Bearer ${pat}` }
    await compare(
      'GET /api/v1/portal/me',
      (target) => ({
        url: `${target === 'ours' ? ours : peer}/api/v1/portal/me`,
        headers,
        connections: CONNECTIONS,
      }),
      async () => {
        const [a, b] = await Promise.all(
          [ours, peer].map((base) =>
            fetch(`${base}/api/v1/portal/me`, { headers }).then((response) => response.json())
          )
        )
        if (!isDeepStrictEqual(a, b)) {
          throw new Error(`bodies differ:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`)
        }
      }
    )
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

  if (ROUTES.includes('login')) {
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
        Array.from({ length: LOGIN_CONNECTIONS }, async () => {
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
    const loginOptions = {
      url: `${ours}/api/v1/auth/login`,
      ...loginRequest,
      connections: LOGIN_CONNECTIONS,
    }
    await cannon({ ...loginOptions, duration: 3 })
    const rounds: { ours: Round[]; scrypt: Round[] } = { ours: [], scrypt: [] }
    for (let index = 0; index < ROUNDS; index++) {
      if (index % 2 === 0) {
        rounds.ours.push(await cannon({ ...loginOptions, duration: SECONDS }))
        rounds.scrypt.push(await scryptLoop(SECONDS))
      } else {
        rounds.scrypt.push(await scryptLoop(SECONDS))
        rounds.ours.push(await cannon({ ...loginOptions, duration: SECONDS }))
      }
    }
    const writes = await writesPerRequest({ ...loginOptions }, 40)
    const a = summary(rounds.ours)
    const b = summary(rounds.scrypt)
    if (a.non2xx) console.error(`login: ${a.non2xx} non-2xx`)
    results.push(
      `| POST /api/v1/auth/login | ${store} | ${LOGIN_CONNECTIONS} | ${a.perSecond.toFixed(1)} | ${a.p50} / ${a.p95} / ${a.p99} | ${writes} | bare crypto.scrypt loop (1 verification) | ${b.perSecond.toFixed(1)} | ${b.p50} / ${b.p95} / ${b.p99} | 0 | **${(a.perSecond / b.perSecond).toFixed(2)}x** | ${load()} |`
    )
    console.error(results.at(-1))
  }

  const cpu = os.cpus()
  console.log(
    `\n${new Date().toISOString().slice(0, 10)}, ${cpu.length} cores (${cpu[0]?.model.trim()}), ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}, ` +
      `${ROUNDS} alternating rounds of ${SECONDS} s, limiter store ${store}\n`
  )
  console.log(
    '| route | limiter store | connections | ours req/s | ours p50 / p95 / p99 ms | ours writes/request | peer | peer req/s | peer p50 / p95 / p99 ms | peer writes/request | ratio | load avg 1/5/15 min at end |'
  )
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|')
  for (const line of results) console.log(line)
} finally {
  await sql.end()
  stopAll()
}
