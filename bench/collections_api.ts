/*
| Benchmark (on demand, never in CI): the collections read routes on a real server and
| PostgreSQL, each beside the bare SQL it runs (EXPLAIN ANALYZE of the very statements
| the operations build: listQueries, showTransactionQuery, historyQueries).
|
|   createdb mp_collections_bench
|   DATABASE_URL=postgres://.../mp_collections_bench node ace migration:run
|   DATABASE_URL=... node --import=@poppinss/ts-exec bench/collections_dataset.ts \
|     --transactions=1000000 --events=3000000 --noise-merchants=4
|   DATABASE_URL=... node --import=@poppinss/ts-exec bench/collections_api.ts \
|     [--merchant=ID] [--seconds=10] [--connections=10] [--port=3415] [--only=TEXT] [--smoke]
|
| --smoke (CI, on a tiny dataset): 1 s rounds without a warm-up, 5 single requests,
| and a check that every scenario measured something.
|
| The server runs with NODE_ENV=production, the APP_KEY the dataset was sealed with
| (tmp/app_key unless APP_KEY is set) and RATE_LIMIT_MULTIPLIER=100000 (the limiter
| is exercised, never refuses). A developer of the merchant is created for the run.
| Prints one JSON object; bench/README.md keeps the figures.
|
| Ratio = endpoint p50 / SQL time, where the SQL time of a route is the slowest of
| the statements it runs concurrently (list: page and count; history: the audit
| insert with its scope check, page and coverage) — the floor the route cannot go
| below on one database. Statements that write are explained in a rolled-back
| transaction.
*/
import { readFileSync } from 'node:fs'
import os from 'node:os'
import autocannon from 'autocannon'
import { bootApp } from './boot_app.js'
import { startProductionServer } from './production_server.js'
import { expectFigures, sized } from './smoke.js'

function flag(name: string, fallback: string) {
  const prefix = `--${name}=`
  return (
    process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length) ?? fallback
  )
}

const SECONDS = Number(flag('seconds', sized('10', '1')))
const WARM_UP_SECONDS = sized(2, 0)
const SINGLE = sized(31, 5)
const CONNECTIONS = Number(flag('connections', '10'))
const PORT = Number(flag('port', '3415'))
const APP_KEY = process.env.APP_KEY ?? readFileSync('tmp/app_key', 'utf8').trim()
process.env.APP_KEY = APP_KEY

const { shutdown } = await bootApp()
const { default: db } = await import('@adonisjs/lucid/services/db')
const { listQueries } = await import('#services/collections/transactions/list_transactions')
const { showTransactionQuery } = await import('#services/collections/transactions/show_transaction')
const { historyQueries } = await import('#services/collections/history/transaction_history')
const { parseTimestamp } = await import('#validators/rules/timestamp')
const { createPortalClient, createMerchantWithUser, issuePat } =
  await import('#tests/helpers/portal')
const { default: Merchant } = await import('#models/merchant')

const largest = await db.rawQuery(
  `SELECT merchant_id FROM transactions GROUP BY merchant_id ORDER BY count(*) DESC LIMIT 1`
)
const merchantId = Number(flag('merchant', String(largest.rows[0].merchant_id)))
const merchant = await Merchant.findOrFail(merchantId)
const client = await createPortalClient()
const { user } = await createMerchantWithUser({ role: 'developer', merchant })
const pat = await issuePat(user, client, { minutes: 240 })

const countResult = await db.rawQuery(
  `SELECT (SELECT count(*) FROM transactions WHERE merchant_id = ?) AS merchant_transactions,
            (SELECT count(*) FROM transactions) AS all_transactions,
            (SELECT count(*) FROM exchange_evidence WHERE merchant_id = ?) AS merchant_evidence,
            (SELECT count(*) FROM exchange_evidence) AS all_evidence,
            (SELECT count(*) FROM transactions WHERE merchant_id = ? AND environment = 'live') AS live`,
  [merchantId, merchantId, merchantId]
)
const counts = countResult.rows[0]
// A transaction with the most history rows of the merchant's live ones (one probe).
const busyResult = await db.rawQuery(
  `SELECT e.transaction_id, count(*) AS events FROM exchange_evidence e
     WHERE e.merchant_id = ? AND e.environment = 'live'
       AND e.transaction_id IN (SELECT id FROM transactions WHERE merchant_id = ?
                                AND environment = 'live' ORDER BY id LIMIT 2000)
     GROUP BY e.transaction_id ORDER BY count(*) DESC LIMIT 1`,
  [merchantId, merchantId]
)
const busy = busyResult.rows[0]
const transactionId = String(busy.transaction_id)

const environment = 'live' as const
const from = parseTimestamp('2026-06-01T00:00:00+08:00')!
const to = parseTimestamp('2026-07-01T00:00:00+08:00')!
const yearFrom = parseTimestamp('2025-07-01T00:00:00+08:00')!
const firstPage = { page: 1, perPage: 25 }

interface Scenario {
  name: string
  path: string
  statements: Array<{ name: string; sql: string; bindings: any[] }>
}

const list = (name: string, qs: string, filters: object, page = firstPage): Scenario => {
  const queries = listQueries(merchantId, { environment, ...filters }, page)
  return {
    name,
    path: `/api/v1/portal/collections/transactions?environment=live${qs}`,
    statements: [
      { name: 'page', ...queries.page },
      { name: 'count', ...queries.count },
    ],
  }
}
// The developer as the route sees it: the history list's audit statement names it.
const actor = {
  kind: 'user' as const,
  userId: user.id,
  merchantId,
  role: 'developer' as const,
  ip: '127.0.0.1',
  requestId: null,
  callerRequestId: null,
}
const history = historyQueries(actor, transactionId, { environment, ...firstPage })
const scenarios: Scenario[] = [
  // The floor of every Portal route: PAT check, user/merchant/application reads, limit.
  { name: 'auth floor: GET /portal/me', path: '/api/v1/portal/me', statements: [] },
  list('list, no filter', '', {}),
  list(
    'list, date range (one month)',
    `&from=${encodeURIComponent(from.sql)}&to=${encodeURIComponent(to.sql)}`,
    { from, to }
  ),
  list('list, query (substring "50%OFF")', '&query=50%25OFF', { query: '50%OFF' }),
  list('list, query matching most rows ("-0")', '&query=-0', { query: '-0' }),
  list('list, status REJECTED', '&status=REJECTED', { status: 'REJECTED' }),
  list(
    'list, status PAID over a year',
    `&status=PAID&from=${encodeURIComponent(yearFrom.sql)}&to=${encodeURIComponent(to.sql)}`,
    { status: 'PAID', from: yearFrom, to }
  ),
  list('list, brand + currency (rarest pair)', '&payment_brand=bpi_online&currency=USD', {
    payment_brand: 'bpi_online',
    currency: 'USD',
  }),
  list('list, page 2,000', '&page=2000', {}, { page: 2000, perPage: 25 }),
  {
    name: 'detail',
    path: `/api/v1/portal/collections/transactions/${transactionId}?environment=live`,
    statements: [{ name: 'row', ...showTransactionQuery(merchantId, transactionId, environment) }],
  },
  {
    name: 'history list',
    path: `/api/v1/portal/collections/transactions/${transactionId}/history?environment=live`,
    statements: [
      { name: 'audit', ...history.audit },
      { name: 'page', ...history.page },
      { name: 'coverage', ...history.coverage },
    ],
  },
]

/**
 * Median execution + planning time of EXPLAIN ANALYZE over five runs (after one
 * warm-up), each in a transaction rolled back: the history audit insert writes.
 */
async function sqlMilliseconds(sql: string, bindings: any[]) {
  const times: number[] = []
  for (let run = 0; run < 6; run++) {
    const trx = await db.transaction()
    try {
      const result = await trx.rawQuery(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, bindings)
      const plan = result.rows[0]['QUERY PLAN'][0]
      if (run > 0) times.push(plan['Execution Time'] + plan['Planning Time'])
    } finally {
      await trx.rollback()
    }
  }
  times.sort((a, b) => a - b)
  return +times[2].toFixed(2)
}

const { base, stop } = await startProductionServer({ port: PORT, appKey: APP_KEY })
const loadAtStart = os.loadavg()
const results: Array<Record<string, any>> = []
try {
  // --only=text keeps the floor and the scenarios whose name contains it.
  const only = flag('only', '')
  for (const scenario of scenarios.filter(
    (candidate, index) => index === 0 || candidate.name.includes(only)
  )) {
    const check = await fetch(base + scenario.path, { headers: { authorization: `Bearer ${pat}` } })
    if (check.status !== 200)
      throw new Error(`${scenario.name}: ${check.status} ${await check.text()}`)
    const body = (await check.json()) as { meta?: { total: number }; data: unknown }
    const latencies: number[] = []
    const run = (duration: number, record: boolean) =>
      new Promise<autocannon.Result>((resolve, reject) => {
        const instance = autocannon(
          {
            url: base + scenario.path,
            connections: CONNECTIONS,
            duration,
            headers: { authorization: `Bearer ${pat}` },
          },
          (error, finished) => (error ? reject(error) : resolve(finished))
        )
        if (record) {
          instance.on('response', (_client, _status, _bytes, time) => latencies.push(time))
        }
      })
    if (WARM_UP_SECONDS > 0) await run(WARM_UP_SECONDS, false)
    const result = await run(SECONDS, true)
    latencies.sort((a, b) => a - b)
    const percentile = (p: number) =>
      +latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(
        2
      )
    const sql: Record<string, number> = {}
    for (const statement of scenario.statements) {
      sql[statement.name] = await sqlMilliseconds(statement.sql, statement.bindings)
    }
    const floor = Math.max(0, ...Object.values(sql))
    // Single requests, no concurrency: the route's own latency beside its SQL. Each is
    // paired with a GET /portal/me just before it, so that the floor subtracted from
    // a route is measured under the same load as the route (the machine is shared).
    const single: number[] = []
    const floorSamples: number[] = []
    const timed = async (path: string) => {
      const started = performance.now()
      const response = await fetch(base + path, { headers: { authorization: `Bearer ${pat}` } })
      await response.arrayBuffer()
      return performance.now() - started
    }
    for (let index = 0; index < SINGLE; index++) {
      floorSamples.push(await timed(scenarios[0].path))
      single.push(await timed(scenario.path))
    }
    single.sort((a, b) => a - b)
    floorSamples.sort((a, b) => a - b)
    const median = Math.floor(SINGLE / 2)
    const singleP50 = +single[median].toFixed(2)
    const authFloor = +floorSamples[median].toFixed(2)
    results.push({
      scenario: scenario.name,
      total: body.meta?.total,
      requests_per_second: Math.round(result.requests.average),
      non_2xx: result.non2xx,
      p50_ms: percentile(50),
      p95_ms: percentile(95),
      single_p50_ms: singleP50,
      auth_floor_p50_ms: authFloor,
      sql_ms: sql,
      ratio_single_p50_to_sql: floor ? +(singleP50 / floor).toFixed(2) : null,
      route_ms_above_auth_floor: +(singleP50 - authFloor).toFixed(2),
      ratio_above_floor_to_sql: floor ? +((singleP50 - authFloor) / floor).toFixed(2) : null,
    })
    console.error(JSON.stringify(results.at(-1)))
  }
} finally {
  stop()
}
console.log(
  JSON.stringify(
    {
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.cpus()[0]?.model}, load ${os.loadavg()[0].toFixed(1)}`,
      dataset: { merchant_id: merchantId, ...counts, history_transaction: transactionId },
      connections: CONNECTIONS,
      seconds: SECONDS,
      results,
    },
    null,
    2
  )
)

// The same figures as a Markdown table for bench/README.md.
const loads = (values: number[]) => values.map((load) => load.toFixed(1)).join(' / ')
const ms = (value: number) => `${value.toFixed(2)} ms`
console.log(
  [
    `Load average (1/5/15 min) ${loads(loadAtStart)} at the start, ${loads(os.loadavg())} at the end; ` +
      `${CONNECTIONS} connections × ${SECONDS} s.`,
    '',
    '| route | total | req/s | p50 | p95 | single p50 | SQL (EXPLAIN ANALYZE) | single p50 ÷ slowest SQL | /me floor (paired) | single p50 − floor | (single p50 − floor) ÷ slowest SQL |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map((row) =>
      [
        '',
        row.scenario,
        row.total === undefined ? '–' : row.total.toLocaleString('en-US'),
        row.requests_per_second,
        ms(row.p50_ms),
        ms(row.p95_ms),
        ms(row.single_p50_ms),
        Object.entries(row.sql_ms as Record<string, number>)
          .map(([name, time]) => `${name} ${time} ms`)
          .join(', ') || '–',
        row.ratio_single_p50_to_sql ?? '–',
        ms(row.auth_floor_p50_ms),
        ms(row.route_ms_above_auth_floor),
        row.ratio_above_floor_to_sql ?? '–',
        '',
      ]
        .join(' | ')
        .trim()
    ),
  ].join('\n')
)
expectFigures(
  'collections_api',
  Object.fromEntries(
    results.flatMap((row) => [
      [`${row.scenario} req/s`, row.requests_per_second],
      [`${row.scenario} single p50`, row.single_p50_ms],
    ])
  )
)
await shutdown()
