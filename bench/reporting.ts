/*
| Benchmark: GET /api/v1/portal/collections/metrics and /charts on a real server and
| PostgreSQL, with the bare SQL of each request beside it (bench/README.md).
|
| For each dataset (bench/reporting_dataset.ts: 1,000,000 transactions, and a typical
| merchant's 50,000) and scenario (metrics over one and ten years, a daily chart over
| 366 days, a monthly chart over ten years):
| - endpoint latency p50/p95 over BENCH_REQUESTS sequential requests (one at a time,
|   so latency is not queueing; an autocannon pass of as many first warms up and checks
|   for non-2xx), each preceded by a GET /portal/me whose p50 is the row's floor;
| - the same statement the endpoint runs (app/services/collections/reporting/scope_statement.ts without a brand
|   filter, app/services/collections/reporting/aggregate_statement.ts with one), timed
|   as bare SQL on one connection right after each endpoint request, and its plan's
|   scan nodes;
| - for the ten-year scenarios, the statement with the rollup switched off (every
|   bucket read from raw rows), the figure that made the rollup necessary.
|
| Usage: npm run build, then
|   DATABASE_URL=postgres://.../scratch node --import=@poppinss/ts-exec bench/reporting.ts
| (the server is the production build, build/bin/server.js; a Markdown table is printed
| last, ready for bench/README.md)
| (migrates, refreshes demo data and loads the datasets once; never point it at production).
| Knobs: BENCH_REQUESTS (60), BENCH_PORT (3416). BENCH_SMOKE=1 or --smoke (CI): datasets
| of 10,000 and 1,000 rows, 3 requests per scenario, and a check that every scenario
| measured something.
*/
import { spawn, execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import os from 'node:os'
import autocannon from 'autocannon'
import pg from 'pg'
import { buildBuckets } from '../app/services/collections/reporting/buckets.ts'
import type { Interval } from '../app/models/collections_vocabulary.ts'
import { planReads, type ReadPlan } from '../app/services/collections/reporting/query_plan.ts'
import { aggregateStatement } from '../app/services/collections/reporting/aggregate_statement.ts'
import { planScopeReads } from '../app/services/collections/reporting/scope_plan.ts'
import { scopeAggregateStatement } from '../app/services/collections/reporting/scope_statement.ts'
import { parseTimestamp } from '../app/validators/rules/timestamp.ts'
import { DATASETS, loadReportingDataset, type DatasetName } from './reporting_dataset.ts'
import { expectFigures, sized } from './smoke.ts'
import './exit_on_signal.ts'

const DATABASE_URL = process.env.DATABASE_URL
if (!DATABASE_URL) throw new Error('Set DATABASE_URL to a scratch database')
const PORT = Number(process.env.BENCH_PORT ?? 3416)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? sized(60, 3))
const RAW_ONLY_RUNS = sized(15, 2)
const DATASET_ROWS: Record<DatasetName, number> = {
  large: sized(DATASETS.large.rows, 10_000),
  typical: sized(DATASETS.typical.rows, 1_000),
}
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

const TIMEZONE = 'Asia/Manila'
const SCENARIOS: Array<{
  name: string
  from: string
  to: string
  interval?: Interval
  brand?: string
}> = [
  { name: 'metrics 1y', from: '2025-11-22T00:00:00+08:00', to: '2026-11-22T00:00:00+08:00' },
  { name: 'metrics 10y', from: '2016-11-22T00:00:00+08:00', to: '2026-11-22T00:00:00+08:00' },
  {
    name: 'daily chart 366 d',
    from: '2025-11-21T00:00:00+08:00',
    to: '2026-11-22T00:00:00+08:00',
    interval: 'day',
  },
  {
    name: 'monthly chart 10y',
    from: '2016-12-01T00:00:00+08:00',
    to: '2026-12-01T00:00:00+08:00',
    interval: 'month',
  },
  // A brand filter: a fifth of the rows, read through the same index with one more
  // condition (before its raw parts were LATERAL scans, this took seconds).
  {
    name: 'daily chart 366 d, one brand',
    from: '2025-11-21T00:00:00+08:00',
    to: '2026-11-22T00:00:00+08:00',
    interval: 'day',
    brand: 'bpi',
  },
]

const ace = (...args: string[]) => execFileSync('node', ['ace', ...args], { env, encoding: 'utf8' })
ace('migration:run', '--force')
const demo = JSON.parse(ace('demo:seed').trim().split('\n').pop()!)

const sql = new pg.Client({ connectionString: DATABASE_URL })
await sql.connect()
const merchant = await sql.query(`SELECT merchant_id FROM users WHERE username = $1`, [
  demo.administrator.username,
])
const merchantId = Number(merchant.rows[0].merchant_id)
for (const name of Object.keys(DATASETS) as DatasetName[]) {
  const started = Date.now()
  const result = await loadReportingDataset(sql, merchantId, name, DATASET_ROWS[name])
  if (result.loaded)
    console.error(`loaded ${name}: ${result.rows} rows in ${Date.now() - started} ms`)
}
await sql.query('VACUUM ANALYZE transactions')
await sql.query('VACUUM ANALYZE transaction_totals')
await sql.query('VACUUM ANALYZE transaction_scope_totals')
await sql.query("SET TIME ZONE 'UTC'; SET jit = off")

const percentile = (sorted: number[], p: number) =>
  +sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(2)

function statementOf(
  dataset: DatasetName,
  from: string,
  to: string,
  interval?: Interval,
  paymentBrand?: string
) {
  const fromMicros = parseTimestamp(from)!.epochMicros
  const toMicros = parseTimestamp(to)!.epochMicros
  const buckets = interval
    ? (() => {
        const result = buildBuckets(fromMicros, toMicros, TIMEZONE, interval)
        if (!result.ok) throw new Error('over the bucket limit')
        return result.buckets
      })()
    : [{ from: fromMicros, to: toMicros }]
  const scope = {
    merchantId,
    environment: DATASETS[dataset].environment,
    currency: 'PHP',
    paymentBrand,
  }
  const numbered = ({ sql: text, bindings }: { sql: string; bindings: unknown[] }) => {
    let index = 0
    return { text: text.replace(/\?/g, () => `$${++index}`), values: bindings }
  }
  const rawPlan: ReadPlan = {
    raw: buckets.map((bucket, index) => ({
      bucket: index,
      sign: 1 as const,
      from: bucket.from,
      to: bucket.to,
    })),
    day: [],
    month: [],
  }
  // As the service chooses (app/services/collections/reporting/collection_aggregate.ts): the
  // scope rollup without a brand filter, the brand rollup with one.
  const planned =
    paymentBrand === undefined
      ? scopeAggregateStatement(scope, planScopeReads(buckets))
      : aggregateStatement(scope, planReads(buckets))
  return { planned: numbered(planned), rawOnly: numbered(aggregateStatement(scope, rawPlan)) }
}

/**
 * As the service sends it: a named (prepared) statement, on a session set up as
 * config/database.ts does (JIT off).
 */
const statementNames = new Map<string, string>()
async function runStatement(statement: { text: string; values: unknown[] }) {
  let name = statementNames.get(statement.text)
  if (!name) statementNames.set(statement.text, (name = `bench_${statementNames.size}`))
  await sql.query({ name, ...statement })
}

async function timeStatementOnce(statement: { text: string; values: unknown[] }) {
  const started = process.hrtime.bigint()
  await runStatement(statement)
  return Number(process.hrtime.bigint() - started) / 1e6
}

async function timeSql(statement: { text: string; values: unknown[] }, rounds: number) {
  for (let warm = 0; warm < 3; warm++) await runStatement(statement)
  const times: number[] = []
  for (let round = 0; round < rounds; round++) times.push(await timeStatementOnce(statement))
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 50), p95: percentile(times, 95) }
}

async function scanNodes(statement: { text: string; values: unknown[] }) {
  const { rows } = await sql.query({
    text: `EXPLAIN (FORMAT JSON) ${statement.text}`,
    values: statement.values,
  })
  const nodes = new Set<string>()
  const walk = (node: any) => {
    if (/Scan/.test(node['Node Type']) && node['Relation Name']) {
      nodes.add(`${node['Node Type']} on ${node['Relation Name']}`)
    }
    for (const child of node.Plans ?? []) walk(child)
  }
  walk(rows[0]['QUERY PLAN'][0].Plan)
  return [...nodes]
}

/** p50/p95 of REQUESTS sequential GETs (one connection: latency, not queueing). */
async function latencyOf(url: string, pat: string) {
  const latencies: number[] = []
  const run = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, connections: 1, amount: REQUESTS, headers: { authorization: `Bearer ${pat}` } },
      (error, finished) => (error ? reject(error) : resolve(finished))
    )
    instance.on('response', (_client, _status, _bytes, responseTime) =>
      latencies.push(responseTime)
    )
  })
  latencies.sort((a, b) => a - b)
  return { run, latency: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) } }
}

/**
 * GET /portal/me, the endpoint and its bare statement in turn, REQUESTS rounds, one at
 * a time: the floor subtracted from a scenario and the SQL it is divided by are
 * measured under the same load as the endpoint itself (these machines are shared,
 * and their load moves within a minute).
 */
async function pairedLatencyOf(
  url: string,
  pat: string,
  statement: { text: string; values: unknown[] }
) {
  const timed = async (target: string) => {
    const started = performance.now()
    const response = await fetch(target, { headers: { authorization: `Bearer ${pat}` } })
    await response.arrayBuffer()
    if (!response.ok) throw new Error(`${target}: ${response.status}`)
    return performance.now() - started
  }
  for (let warm = 0; warm < 3; warm++) await runStatement(statement)
  const endpoint: number[] = []
  const floor: number[] = []
  const bare: number[] = []
  for (let index = 0; index < REQUESTS; index++) {
    floor.push(await timed(`${base}/api/v1/portal/me`))
    endpoint.push(await timed(url))
    bare.push(await timeStatementOnce(statement))
  }
  const summary = (values: number[]) => {
    values.sort((a, b) => a - b)
    return { p50: percentile(values, 50), p95: percentile(values, 95) }
  }
  return { endpoint: summary(endpoint), floor: summary(floor), sql: summary(bare) }
}

// The production build (`npm run build`), as deployed; BENCH_NODE_ARGS adds node flags
// to the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it).
if (!existsSync('build/bin/server.js')) throw new Error('run `npm run build` first')
const server = spawn(
  'node',
  [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'bin/server.js'],
  { env, cwd: 'build', stdio: 'inherit' }
)
// Stopped with a signal (exit_on_signal.ts), the bench still stops its server.
process.on('exit', () => server.kill('SIGTERM'))
const results: any[] = []
try {
  for (let attempt = 0; ; attempt++) {
    if (attempt > 200) throw new Error('server did not start')
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
  const pat = ((await login.json()) as { data: { access_token: string } }).data.access_token

  // What every Portal request costs before any reporting work (PAT checks, the
  // API-wide limit in its database store, the envelope): GET /portal/me.
  const baseline = await latencyOf(`${base}/api/v1/portal/me`, pat)
  console.error(JSON.stringify({ baseline_portal_me_ms: baseline.latency }))
  results.push({ scenario: 'baseline GET /portal/me', endpoint_ms: baseline.latency })

  for (const dataset of Object.keys(DATASETS) as DatasetName[]) {
    for (const scenario of SCENARIOS) {
      const query = new URLSearchParams({
        environment: DATASETS[dataset].environment,
        currency: 'PHP',
        from: scenario.from,
        to: scenario.to,
        timezone: TIMEZONE,
        ...(scenario.interval ? { interval: scenario.interval } : {}),
        ...(scenario.brand ? { payment_brand: scenario.brand } : {}),
      })
      const path = scenario.interval ? 'charts' : 'metrics'
      const url = `${base}/api/v1/portal/collections/${path}?${query}`
      const check = await fetch(url, { headers: { authorization: `Bearer ${pat}` } })
      if (check.status !== 200)
        throw new Error(`${scenario.name}: ${check.status} ${await check.text()}`)
      const body = (await check.json()) as any
      const { run } = await latencyOf(url, pat)
      const statement = statementOf(
        dataset,
        scenario.from,
        scenario.to,
        scenario.interval,
        scenario.brand
      )
      const paired = await pairedLatencyOf(url, pat, statement.planned)
      const endpoint = paired.endpoint
      const bare = paired.sql
      const raw = scenario.name.includes('10y')
        ? await timeSql(statement.rawOnly, RAW_ONLY_RUNS)
        : null
      results.push({
        dataset: `${dataset} (${DATASET_ROWS[dataset].toLocaleString('en-US')})`,
        scenario: scenario.name,
        transactions: (body.data.totals ?? body.data).transaction_count,
        buckets: body.data.buckets?.length ?? 1,
        non_2xx: run.non2xx,
        endpoint_ms: endpoint,
        sql_ms: bare,
        ratio_p50: +(endpoint.p50 / bare.p50).toFixed(2),
        portal_me_paired_ms: paired.floor,
        ratio_p50_beyond_baseline: +((endpoint.p50 - paired.floor.p50) / bare.p50).toFixed(2),
        beyond_baseline_p50_ms: +(endpoint.p50 - paired.floor.p50).toFixed(2),
        raw_only_sql_ms: raw,
        plan: await scanNodes(statement.planned),
      })
      console.error(JSON.stringify(results[results.length - 1]))
    }
  }
} finally {
  server.kill('SIGTERM')
  await sql.end()
}

console.log(
  JSON.stringify(
    {
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.cpus()[0]?.model}, load ${os.loadavg()[0].toFixed(1)}`,
      requests_per_scenario: REQUESTS,
      results,
    },
    null,
    2
  )
)

// The same figures as a Markdown table for bench/README.md.
const fixed = (value: number) => value.toFixed(2)
const table = [
  `Load average ${os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(' / ')} (1/5/15 min); ` +
    `\`/portal/me\` alone at the start p50 ${fixed(results[0].endpoint_ms.p50)} ms, p95 ${fixed(results[0].endpoint_ms.p95)} ms; ` +
    `each row's floor is /me measured alternately with it. ${REQUESTS} requests per scenario, one at a time.`,
  '',
  '| dataset | scenario | rows in range | buckets | endpoint p50 / p95 ms | SQL p50 / p95 ms | endpoint ÷ SQL (p50) | /me paired p50 ms | endpoint − /me (p50) ms | (endpoint − /me) ÷ SQL | raw-only SQL p50 / p95 ms | scans in the plan |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...results
    .slice(1)
    .map((row) =>
      [
        row.dataset,
        row.scenario,
        row.transactions.toLocaleString('en-US'),
        row.buckets,
        `${fixed(row.endpoint_ms.p50)} / ${fixed(row.endpoint_ms.p95)}`,
        `${fixed(row.sql_ms.p50)} / ${fixed(row.sql_ms.p95)}`,
        fixed(row.ratio_p50),
        fixed(row.portal_me_paired_ms.p50),
        fixed(row.beyond_baseline_p50_ms),
        fixed(row.ratio_p50_beyond_baseline),
        row.raw_only_sql_ms
          ? `${fixed(row.raw_only_sql_ms.p50)} / ${fixed(row.raw_only_sql_ms.p95)}`
          : '—',
        row.plan.join(', '),
      ].join(' | ')
    )
    .map((line) => `| ${line} |`),
]
console.log(table.join('\n'))
expectFigures(
  'reporting',
  Object.fromEntries(
    results.slice(1).flatMap((row) => [
      [`${row.dataset} ${row.scenario} endpoint p50`, row.endpoint_ms.p50],
      [`${row.dataset} ${row.scenario} SQL p50`, row.sql_ms.p50],
    ])
  )
)
