/*
| Benchmark (on demand, never in CI): a history page of 100 items over near-2 MiB
| evidence against a page of small items (issue 21 › Goals 2: p50 under 20 ms, about
| the same as small items), beside a hand-written peer doing the same work.
|
|   npm run build
|   createdb mp_history_bench
|   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mp_history_bench \
|     node --import=@poppinss/ts-exec bench/history_page.ts \
|     [--events=100] [--per-page=100] [--single=60] [--rounds=2] [--seconds=10] \
|     [--connections=10] [--port=3414] [--fresh] [--smoke]
|
| --smoke (CI): 3 events of each kind, 3 single requests, one round of 1 s, and a check
| that every server and page measured something.
|
| Dataset (bench/history_dataset.ts), through the real import (importJsonLines): one
| live transaction with `--events` request events whose bodies have 118,000 keys
| (~1.3 MB of JSON, sealed to 2,054,6xx bytes, just under the 2 MiB read bound), and one
| with as many small request events (~300 bytes). It is kept in the database (merchant
| "History Page Bench") and reused by later runs with the same APP_KEY; `--fresh`
| imports it again for a new merchant.
|
| Servers: the production build (bench/production_server.ts, limits scaled out of the
| way, Prometheus listener on port+1) and bench/peers/history_peer.ts on port+2, both
| answering the same bodies (checked before measuring). Measured, round by round and
| alternating the order so that noise from elsewhere hits all alike:
| - single: one request at a time, p50/p95 (the latency a user sees);
| - concurrent: autocannon with `--connections` for `--seconds`, req/s and p50/p95/p99;
|   meanwhile `/health/live` is probed every 20 ms (its max: how long the event loop
|   kept a request waiting) and the server's own monitorEventLoopDelay max is read
|   from its Prometheus listener (reset by the scrape before the round).
| Prints one JSON object, then the rows for bench/README.md.
*/
import { execFileSync } from 'node:child_process'
import { isDeepStrictEqual } from 'node:util'
import { bootApp } from './boot_app.js'
import { startProductionServer } from './production_server.js'
import {
  assertPortsFree,
  cannon,
  eventLoopMetrics,
  hasFlag,
  healthProbe,
  loadAverage,
  machine,
  numberFlag,
  percentile,
  startPeer,
  summary,
  timed,
  type CannonRound,
} from './load_tools.js'
import { expectFigures, sized } from './smoke.js'

const EVENTS = numberFlag('events', sized(100, 3))
const PER_PAGE = numberFlag('per-page', 100)
const SINGLE = numberFlag('single', sized(60, 3))
const ROUNDS = numberFlag('rounds', sized(2, 1))
const SECONDS = numberFlag('seconds', sized(10, 1))
const WARM_UP_ROUNDS = sized(20, 2)
const CONNECTIONS = numberFlag('connections', 10)
const PORT = numberFlag('port', 3414)
const APP_KEY = process.env.APP_KEY ?? 'bench-app-key-0123456789abcdef0123456789'
process.env.APP_KEY = APP_KEY
const MERCHANT_NAME = 'History Page Bench'
const BIG = `HIST-BIG-${EVENTS}`
const SMALL = `HIST-SMALL-${EVENTS}`

const startedAt = new Date()
const loadAtStart = loadAverage()
execFileSync('node', ['ace', 'migration:run', '--force'], { stdio: 'ignore', env: process.env })
const { shutdown } = await bootApp()
const { default: db } = await import('@adonisjs/lucid/services/db')
const { default: Merchant } = await import('#models/merchant')
const { createPortalClient, createMerchantWithUser, issuePat } =
  await import('#tests/helpers/portal')
const { createBenchMerchant } = await import('./collections_dataset.js')
const { bigRequestBodyText, importHistoryTransactions, smallRequestBodyText, storedSizes } =
  await import('./history_dataset.js')

/** The transaction ids of an earlier run's dataset, when both are complete. */
async function storedDataset() {
  const rows = await db
    .from('transactions as t')
    .join('merchants as m', 'm.id', 't.merchant_id')
    .where('m.name', MERCHANT_NAME)
    .whereIn('t.merchant_transaction_id', [BIG, SMALL])
    .select('t.id', 't.merchant_id', 't.merchant_transaction_id')
    .orderBy('t.id', 'desc')
  const big = rows.find((row) => row.merchant_transaction_id === BIG)
  const small = rows.find(
    (row) => row.merchant_transaction_id === SMALL && row.merchant_id === big?.merchant_id
  )
  if (!big || !small) return null
  const [bigSizes, smallSizes] = [await storedSizes(big.id), await storedSizes(small.id)]
  if (bigSizes.events !== EVENTS || smallSizes.events !== EVENTS) return null
  return { merchantId: Number(big.merchant_id), big: String(big.id), small: String(small.id) }
}

let dataset = hasFlag('fresh') ? null : await storedDataset()
let importFigures: Record<string, unknown> | null = null
if (!dataset) {
  const merchantId = await createBenchMerchant(MERCHANT_NAME)
  const body = await bigRequestBodyText(BIG)
  const imported = await importHistoryTransactions(merchantId, [
    { reference: BIG, events: EVENTS, bodyText: body.text },
    { reference: SMALL, events: EVENTS, bodyText: smallRequestBodyText(SMALL) },
  ])
  dataset = { merchantId, big: imported.ids[BIG], small: imported.ids[SMALL] }
  importFigures = {
    file_mib: +(imported.fileBytes / 2 ** 20).toFixed(1),
    seconds: +imported.seconds.toFixed(1),
    events_created: imported.result.events_created,
  }
}
const sizes = { big: await storedSizes(dataset.big), small: await storedSizes(dataset.small) }

const merchant = await Merchant.findOrFail(dataset.merchantId)
const portalClient = await createPortalClient()
const { user } = await createMerchantWithUser({ role: 'developer', merchant })
const bearer = `Bearer ${await issuePat(user, portalClient, { minutes: 240 })}`

await assertPortsFree(PORT, PORT + 1, PORT + 2)
const ours = await startProductionServer({
  port: PORT,
  appKey: APP_KEY,
  env: { METRICS_PORT: String(PORT + 1) },
})
process.on('exit', ours.stop)
const metricsBase = `http://127.0.0.1:${PORT + 1}`
const peer = await startPeer('bench/peers/history_peer.ts', PORT + 2, {
  APP_KEY,
  RATE_LIMIT_MULTIPLIER: '100000',
})

type Server = 'ours' | 'peer'
type Evidence = 'big' | 'small'
const bases: Record<Server, string> = { ours: ours.base, peer: peer.base }
const pathOf = (evidence: Evidence) =>
  `/api/v1/portal/collections/transactions/${dataset![evidence]}/history?environment=live&per_page=${PER_PAGE}`
const headers = { authorization: bearer }
const combos: Array<[Server, Evidence]> = [
  ['ours', 'big'],
  ['peer', 'big'],
  ['ours', 'small'],
  ['peer', 'small'],
]
const key = (server: Server, evidence: Evidence) => `${server} ${evidence}`

try {
  // Both servers answer the same page, and the big page is what it should be.
  const captureStatuses: Record<string, Record<string, number>> = {}
  for (const evidence of ['big', 'small'] as const) {
    const [mine, theirs] = await Promise.all(
      (['ours', 'peer'] as const).map(async (server) => {
        const response = await fetch(bases[server] + pathOf(evidence), { headers })
        if (response.status !== 200) {
          throw new Error(`${server} ${evidence}: ${response.status} ${await response.text()}`)
        }
        return (await response.json()) as { data: Array<{ capture_status: string }> }
      })
    )
    if (!isDeepStrictEqual(mine, theirs)) throw new Error(`peer's ${evidence} page differs`)
    if (mine.data.length !== Math.min(PER_PAGE, EVENTS)) throw new Error('short page')
    captureStatuses[evidence] = {}
    for (const item of mine.data) {
      captureStatuses[evidence][item.capture_status] =
        (captureStatuses[evidence][item.capture_status] ?? 0) + 1
    }
  }
  if (captureStatuses.big.unavailable) {
    throw new Error('stored projections do not open: another APP_KEY? run with --fresh')
  }

  // Warm-up, then single requests, the four probes interleaved, order rotating.
  for (let index = 0; index < WARM_UP_ROUNDS; index++) {
    for (const [server, evidence] of combos) {
      await timed(bases[server] + pathOf(evidence), { headers })
    }
  }
  const single: Record<string, number[]> = {}
  for (let index = 0; index < SINGLE; index++) {
    for (let offset = 0; offset < combos.length; offset++) {
      const [server, evidence] = combos[(index + offset) % combos.length]
      ;(single[key(server, evidence)] ??= []).push(
        await timed(bases[server] + pathOf(evidence), { headers })
      )
    }
  }

  // Concurrent rounds, order reversed every other round.
  const rounds: Record<string, CannonRound[]> = {}
  const loops: Record<string, Array<Record<string, unknown>>> = {}
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? combos : [...combos].reverse()
    for (const [server, evidence] of order) {
      await eventLoopMetrics(server === 'ours' ? metricsBase : null)
      const probe = healthProbe(bases[server])
      const result = await cannon({
        url: bases[server] + pathOf(evidence),
        connections: CONNECTIONS,
        duration: SECONDS,
        headers,
      })
      const health = await probe.stop()
      const serverLoop = await eventLoopMetrics(server === 'ours' ? metricsBase : null)
      ;(rounds[key(server, evidence)] ??= []).push(result)
      ;(loops[key(server, evidence)] ??= []).push({ health_live: health, server: serverLoop })
    }
  }

  const results = combos.map(([server, evidence]) => {
    const times = single[key(server, evidence)]
    const roundLoops = loops[key(server, evidence)]
    const healthMax = Math.max(
      ...roundLoops.map((loop) => (loop.health_live as { max_ms: number }).max_ms)
    )
    const serverMax = roundLoops
      .map((loop) => (loop.server as Record<string, number> | null)?.nodejs_eventloop_lag_max_ms)
      .filter((value): value is number => value !== undefined)
    return {
      server: server === 'ours' ? 'production build' : 'peer (node:http + pg)',
      evidence,
      single_p50_ms: percentile(times, 50),
      single_p95_ms: percentile(times, 95),
      concurrent: summary(rounds[key(server, evidence)]),
      health_live_max_ms: healthMax,
      event_loop_max_ms: serverMax.length ? Math.max(...serverMax) : null,
      event_loop_rounds: roundLoops,
    }
  })
  const find = (server: string, evidence: Evidence) =>
    results.find((row) => row.server.startsWith(server) && row.evidence === evidence)!
  const ratios = {
    ours_over_peer_req_per_s_big: +(
      find('production', 'big').concurrent.requests_per_second /
      find('peer', 'big').concurrent.requests_per_second
    ).toFixed(2),
    ours_over_peer_req_per_s_small: +(
      find('production', 'small').concurrent.requests_per_second /
      find('peer', 'small').concurrent.requests_per_second
    ).toFixed(2),
    ours_big_over_small_single_p50: +(
      find('production', 'big').single_p50_ms! / find('production', 'small').single_p50_ms!
    ).toFixed(2),
  }
  const loadAtEnd = loadAverage()
  console.log(
    JSON.stringify(
      {
        date: startedAt.toISOString(),
        machine: machine(),
        load_average_start: loadAtStart,
        load_average_end: loadAtEnd,
        dataset: {
          events_per_transaction: EVENTS,
          per_page: PER_PAGE,
          big_snapshot_bytes: sizes.big.snapshot_bytes,
          big_projection_bytes: sizes.big.projection_bytes,
          small_snapshot_bytes: sizes.small.snapshot_bytes,
          small_projection_bytes: sizes.small.projection_bytes,
          capture_statuses: captureStatuses,
          imported_now: importFigures,
        },
        single_requests: SINGLE,
        rounds: ROUNDS,
        seconds: SECONDS,
        connections: CONNECTIONS,
        results,
        ratios,
      },
      null,
      2
    )
  )
  const loads = (values: number[]) => values.join(' / ')
  console.log(
    [
      '',
      `${startedAt.toISOString().slice(0, 16)} UTC, ${machine()}; load average ${loads(loadAtStart)} at the start, ${loads(loadAtEnd)} at the end; ` +
        `${EVENTS} events per transaction, per_page=${PER_PAGE}, ${SINGLE} single requests, ` +
        `${ROUNDS} × ${SECONDS} s at ${CONNECTIONS} connections.`,
      '',
      '| evidence | server | single p50 / p95 ms | req/s | p50 / p95 / p99 ms | /health/live max ms | event loop max ms |',
      '|---|---|---|---|---|---|---|',
      ...results.map(
        (row) =>
          `| ${row.evidence === 'big' ? `${EVENTS} × ${sizes.big.snapshot_bytes.toLocaleString('en-US')} B` : `${EVENTS} × ${sizes.small.snapshot_bytes} B`} | ${row.server} | ${row.single_p50_ms} / ${row.single_p95_ms} | ${row.concurrent.requests_per_second} | ${row.concurrent.p50_ms} / ${row.concurrent.p95_ms} / ${row.concurrent.p99_ms} | ${row.health_live_max_ms} | ${row.event_loop_max_ms ?? '–'} |`
      ),
      '',
      `Ratios: ours ÷ peer req/s ${ratios.ours_over_peer_req_per_s_big}× (big), ${ratios.ours_over_peer_req_per_s_small}× (small); ours big ÷ small single p50 ${ratios.ours_big_over_small_single_p50}×.`,
    ].join('\n')
  )
  expectFigures(
    'history_page',
    Object.fromEntries(
      results.flatMap((row) => [
        [`${row.server} ${row.evidence} single p50`, row.single_p50_ms],
        [`${row.server} ${row.evidence} req/s`, row.concurrent.requests_per_second],
      ])
    )
  )
} finally {
  ours.stop()
  peer.stop()
  await shutdown()
}
