/*
| Benchmark: GET /api/v1/portal/me (PAT verification + user/merchant/application
| checks) on a real server and PostgreSQL, plus the bare SQL those checks run.
|
| Also counts row updates on auth_access_tokens during the run: the stock token
| provider writes last_used_at on every request; ours at most once a minute per token.
|
| Usage: DATABASE_URL=postgres://... node --import=@poppinss/ts-exec bench/portal_me.ts
| (the database is migrated and demo data refreshed; do not point it at production).
*/
import { spawn, execFileSync } from 'node:child_process'
import { setTimeout as delay } from 'node:timers/promises'
import os from 'node:os'
import autocannon from 'autocannon'
import pg from 'pg'

const DATABASE_URL = process.env.DATABASE_URL
if (!DATABASE_URL) throw new Error('Set DATABASE_URL to a scratch database')
const PORT = Number(process.env.BENCH_PORT ?? 3390)
const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const base = `http://127.0.0.1:${PORT}`
const env = {
  ...process.env,
  NODE_ENV: 'production',
  APP_KEY: process.env.APP_KEY ?? 'bench-app-key-0123456789abcdef0123456789',
  PORT: String(PORT),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MULTIPLIER: '100000',
}

const ace = (...args: string[]) => execFileSync('node', ['ace', ...args], { env, encoding: 'utf8' })
ace('migration:run', '--force')
const demo = JSON.parse(ace('demo:seed').trim().split('\n').pop()!)

const server = spawn('node', ['--import=@poppinss/ts-exec', 'bin/server.ts'], {
  env,
  stdio: 'inherit',
})
try {
  for (let attempt = 0; ; attempt++) {
    if (attempt > 100) throw new Error('server did not start')
    const live = await fetch(`${base}/health/live`).catch(() => null)
    if (live?.ok) break
    await delay(100)
  }
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Application': 'merchant_portal',
      'Authorization': `Basic ${Buffer.from(`${demo.portal_client.client_id}:${demo.portal_client.client_secret}`).toString('base64')}`,
    },
    body: JSON.stringify({
      username: demo.administrator.username,
      password: demo.administrator.password,
    }),
  })
  const session = (await login.json()) as { data: { access_token: string } }
  const pat = session.data.access_token

  const sql = new pg.Client({ connectionString: DATABASE_URL })
  await sql.connect()
  const updates = async () => {
    await sql.query('select pg_stat_clear_snapshot()')
    const { rows } = await sql.query(
      "select n_tup_upd from pg_stat_user_tables where relname = 'auth_access_tokens'"
    )
    return Number(rows[0]?.n_tup_upd ?? 0)
  }
  const updatesBefore = await updates()
  const latencies: number[] = []
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${base}/api/v1/portal/me`,
        connections: CONNECTIONS,
        duration: DURATION,
        headers: { authorization: `Bearer ${pat}` },
      },
      (error, finished) => (error ? reject(error) : resolve(finished))
    )
    instance.on('response', (_client, _status, _bytes, responseTime) =>
      latencies.push(responseTime)
    )
  })
  latencies.sort((a, b) => a - b)
  const percentile = (p: number) =>
    +latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(2)
  await delay(600) // statistics are flushed asynchronously
  const updatesDuring = (await updates()) - updatesBefore

  // The same reads the middleware performs, as bare SQL on one connection.
  const tokenId = pat.slice(4).split('.')[0]
  const id = Buffer.from(tokenId, 'base64url').toString()
  const rounds = 2000
  const started = process.hrtime.bigint()
  for (let index = 0; index < rounds; index++) {
    const token = await sql.query(
      'select * from auth_access_tokens where id = $1 and type = $2 limit 1',
      [id, 'portal']
    )
    const user = await sql.query('select * from users where id = $1 limit 1', [
      token.rows[0].tokenable_id,
    ])
    await sql.query('select * from merchants where id = $1 limit 1', [user.rows[0].merchant_id])
    await sql.query('select * from portal_clients where id = $1 limit 1', [
      token.rows[0].portal_client_id,
    ])
  }
  const bareMs = Number(process.hrtime.bigint() - started) / 1e6
  await sql.end()

  console.log(
    JSON.stringify(
      {
        machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.cpus()[0]?.model}`,
        endpoint: 'GET /api/v1/portal/me',
        connections: CONNECTIONS,
        seconds: DURATION,
        requests: result.requests.total,
        non_2xx: result.non2xx,
        req_per_sec: result.requests.average,
        latency_ms: { p50: percentile(50), p95: percentile(95), p99: percentile(99) },
        token_row_updates_during_run: updatesDuring,
        bare_sql: {
          rounds,
          ms_per_round: +(bareMs / rounds).toFixed(3),
          rounds_per_sec: Math.round((rounds / bareMs) * 1000),
        },
      },
      null,
      2
    )
  )
} finally {
  server.kill('SIGTERM')
}
