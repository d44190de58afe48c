/*
| Benchmark (on demand; CI runs its smoke mode): how the read routes' cost grows with
| the data (issue 40 › goals 1 and 2). Two datasets of the same generator
| (bench/growth_dataset.ts), `--small` and `--large` transactions (1,000,000 and
| 10,000,000), each in a database of its own named after DATABASE_URL's and its size
| (`<name>_1m`, `<name>_10m`), built through `collections:import` a chunk at a time and
| reused by later runs. Then the production build serves each (two servers, port and
| port + 1) and the same routes of the large merchant are measured on both, alternating:
|
|   list_first    GET .../collections/transactions?environment=live (first page)
|   list_month    the same, one month (October 2026, +08:00)
|   list_status   the same, `status=PAID`
|   detail        GET .../collections/transactions/{id} (one transaction with a webhook)
|   history       GET .../collections/transactions/{id}/history (the same one)
|   metrics_year  GET .../collections/metrics, the dataset's last year, Asia/Manila
|   chart_day     GET .../collections/charts, 366 days by day, Asia/Manila
|   chart_month   GET .../collections/charts, ten years by month, Asia/Manila
|
| Per route: single requests one at a time (small and large alternating; p50), then
| autocannon rounds of `--connections` alternating (small, large), (large, small), ...
| (req/s); the ratios large ÷ small (goal 1: p50 at most 1.25x, req/s at least 0.8x).
| Per chunk: the import's own time (goal 2: the large dataset's last chunk at most 1.1x
| its first). Prints a Markdown table per part and one JSON object.
|
|   npm run build
|   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mp_growth \
|     node --import=@poppinss/ts-exec bench/growth.ts
|
| Flags: --small=1000000 --large=10000000 --chunk=(min of --small and 1,000,000)
|   --seed=1 --single=100 --single-seconds=30 --rounds=3 --seconds=10 --connections=10
|   --port=3440 (large +1) --build-only[=small|large] (build or check the datasets, stop)
| --smoke (CI): 500 and 2,000 transactions in chunks of 500, one round of 1 s, 5 single
| requests, and a check that every route and chunk measured something.
| The datasets are sealed under APP_KEY (a fixed bench key unless set); a dataset built
| under another key, seed or chunk size is refused rather than measured.
*/
import pg from 'pg'
import { buildAce, DATASET_END, ensureDataset, lastJson, type Dataset } from './growth_dataset.js'
import {
  assertPortsFree,
  cannon,
  flag,
  hasFlag,
  loadAverage,
  machine,
  numberFlag,
  summary,
  timed,
  type CannonRound,
} from './load_tools.js'
import { startProductionServer } from './production_server.js'
import { expectFigures, sized } from './smoke.js'

const SMALL = numberFlag('small', sized(1_000_000, 500))
const LARGE = numberFlag('large', sized(10_000_000, 2_000))
const CHUNK = numberFlag('chunk', Math.min(SMALL, 1_000_000))
const SEED = numberFlag('seed', 1)
const SINGLE = numberFlag('single', sized(100, 5))
const SINGLE_SECONDS = numberFlag('single-seconds', 30)
const ROUNDS = numberFlag('rounds', sized(3, 1))
const SECONDS = numberFlag('seconds', sized(10, 1))
// autocannon ends a run on a whole second: a smoke run has no warm-up.
const WARM_UP_SECONDS = sized(3, 0)
const CONNECTIONS = numberFlag('connections', 10)
const PORT = numberFlag('port', 3440)
const BUILD_ONLY = hasFlag('build-only') ? 'small,large' : flag('build-only', '')
const APP_KEY = process.env.APP_KEY ?? 'bench-app-key-0123456789abcdef0123456789'
const PASSWORD = 'Growth-bench-password-1'
const DEVELOPER_EMAIL = 'growth-bench@merchant.test'
if (!process.env.DATABASE_URL) throw new Error('Set DATABASE_URL (its name prefixes the datasets)')
for (const size of [SMALL, LARGE]) {
  if (!Number.isSafeInteger(size) || size < 1 || size % CHUNK !== 0) {
    throw new Error(`--small and --large must be whole multiples of --chunk (${CHUNK})`)
  }
}

/** 1000000 -> 1m, 100000 -> 100k, 2000 -> 2k, 500 -> 500. */
const sizeLabel = (size: number) =>
  size % 1_000_000 === 0
    ? `${size / 1_000_000}m`
    : size % 1000 === 0
      ? `${size / 1000}k`
      : `${size}`

const startedAt = new Date()
const loadAtStart = loadAverage()
const adminUrl = new URL(process.env.DATABASE_URL)
const admin = new pg.Client({ connectionString: adminUrl.href })
await admin.connect()
const datasets: Record<'small' | 'large', Dataset> = {} as Record<'small' | 'large', Dataset>
try {
  for (const [role, size] of [
    ['small', SMALL],
    ['large', LARGE],
  ] as const) {
    if (BUILD_ONLY && !BUILD_ONLY.split(',').includes(role)) continue
    const name = `${adminUrl.pathname.slice(1)}_${sizeLabel(size)}`
    const url = new URL(adminUrl.href)
    url.pathname = `/${name}`
    datasets[role] = await ensureDataset({
      admin,
      name,
      url: url.href,
      size,
      chunk: CHUNK,
      seed: SEED,
      appKey: APP_KEY,
      log: (line) => console.error(line),
    })
  }
} finally {
  await admin.end()
}

/** Per chunk of the large dataset, seconds and the ratio to its first (goal 2). */
function importFigures(dataset: Dataset) {
  const first = dataset.chunks[0]?.import_seconds ?? null
  const last = dataset.chunks.at(-1)?.import_seconds ?? null
  return {
    database: dataset.name,
    transactions: dataset.size,
    chunks: dataset.chunks,
    chunks_imported_now: dataset.builtNow,
    last_to_first: first && last ? +(last / first).toFixed(2) : null,
  }
}

function importTable(dataset: Dataset) {
  const first = dataset.chunks[0]?.import_seconds
  return [
    `\n${dataset.name}: import time per chunk of ${CHUNK.toLocaleString('en-US')} transactions (\`collections:import FILE\`, its own duration_ms)\n`,
    '| chunk | transactions | events | file MiB | import s | rows/s | ÷ first | WAL MiB | full-page images | resumed | load avg at start |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...dataset.chunks.map((chunk) => {
      const seconds = chunk.import_seconds
      const rows = chunk.transactions + chunk.events
      return `| ${chunk.chunk} | ${chunk.transactions.toLocaleString('en-US')} | ${chunk.events.toLocaleString('en-US')} | ${chunk.file_mib} | ${seconds ?? '-'} | ${seconds ? Math.round(rows / seconds).toLocaleString('en-US') : '-'} | ${seconds && first ? (seconds / first).toFixed(2) : '-'} | ${chunk.wal_mib ?? '-'} | ${chunk.wal_fpi ?? '-'} | ${chunk.resumed ? 'yes' : ''} | ${chunk.load_average ?? '-'} |`
    }),
  ].join('\n')
}

if (BUILD_ONLY) {
  for (const dataset of Object.values(datasets)) console.log(importTable(dataset))
  console.log(JSON.stringify({ build_only: Object.values(datasets).map(importFigures) }))
  process.exit(0)
}

type Size = 'small' | 'large'

/** The median in ms to two decimals (load_tools' percentile rounds to 0.1 ms, 5 % of a fast read). */
function median(values: number[]) {
  if (values.length === 0) return null
  return +[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)].toFixed(2)
}
const SIZES: Size[] = ['small', 'large']

/** Counts and sizes of a dataset's database, for the record beside the figures. */
async function describe(dataset: Dataset, merchantId: number) {
  const sql = new pg.Client({ connectionString: dataset.url })
  await sql.connect()
  try {
    const { rows } = await sql.query(
      `SELECT (SELECT count(*) FROM transactions)::bigint AS transactions,
              (SELECT count(*) FROM transactions WHERE merchant_id = $1)::bigint AS large_merchant,
              (SELECT count(*) FROM evidence_records)::bigint AS events,
              pg_database_size(current_database()) AS database_bytes,
              pg_total_relation_size('transactions') AS transactions_bytes,
              -- exchange_evidence is a view of the records and the bodies' partitions.
              (SELECT sum(pg_total_relation_size(relid)) FROM (
                SELECT 'evidence_records'::regclass AS relid
                UNION ALL
                SELECT relid FROM pg_partition_tree('evidence_bodies') WHERE isleaf
              ) stored) AS evidence_bytes`,
      [merchantId]
    )
    const mib = (bytes: string) => Math.round(Number(bytes) / 2 ** 20)
    return {
      transactions: Number(rows[0].transactions),
      large_merchant_transactions: Number(rows[0].large_merchant),
      events: Number(rows[0].events),
      database_mib: mib(rows[0].database_bytes),
      transactions_mib: mib(rows[0].transactions_bytes),
      exchange_evidence_mib: mib(rows[0].evidence_bytes),
    }
  } finally {
    await sql.end()
  }
}

/** A developer of the large merchant (created once) and a PAT from a Portal login. */
async function developerToken(dataset: Dataset, base: string) {
  const sql = new pg.Client({ connectionString: dataset.url })
  await sql.connect()
  try {
    const found = await sql.query('SELECT id FROM users WHERE email = $1', [DEVELOPER_EMAIL])
    if (found.rowCount === 0) {
      buildAce(
        dataset.url,
        APP_KEY,
        [
          'user:create',
          `--merchant=${dataset.merchantIds[0]}`,
          `--email=${DEVELOPER_EMAIL}`,
          '--first-name=Growth',
          '--last-name=Bench',
          '--role=developer',
        ],
        `${PASSWORD}\n`
      )
    }
  } finally {
    await sql.end()
  }
  // The Portal application's credentials are printed once: a new client per run.
  const client = lastJson(
    buildAce(dataset.url, APP_KEY, [
      'portal-client:create',
      '--name=growth-bench',
      `--origin=${base}`,
    ])
  )
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-application': 'merchant_portal',
      'authorization': `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
    },
    body: JSON.stringify({ username: DEVELOPER_EMAIL, password: PASSWORD }),
  })
  if (login.status !== 200) throw new Error(`${dataset.name}: login answered ${login.status}`)
  return ((await login.json()) as { data: { access_token: string } }).data.access_token
}

/**
 * The transaction detail and history read: the large merchant's newest live one with
 * a webhook and no retry (four events) and bodies as generated (none padded), so that
 * both datasets read one of the same shape.
 */
async function targetTransaction(dataset: Dataset) {
  const sql = new pg.Client({ connectionString: dataset.url })
  await sql.connect()
  try {
    const { rows } = await sql.query(
      `SELECT t.id, t.merchant_transaction_id FROM transactions t
        WHERE t.merchant_id = $1 AND t.environment = 'live'
          AND (SELECT count(*) FROM evidence_records e WHERE e.transaction_id = t.id) = 4
          AND NOT EXISTS (SELECT 1 FROM evidence_records e
            JOIN evidence_bodies b ON b.id = e.id AND b.body_month = e.body_month
            WHERE e.transaction_id = t.id AND b.snapshot_size > 1000)
        ORDER BY t.created_at DESC NULLS LAST, t.id DESC LIMIT 1`,
      [dataset.merchantIds[0]]
    )
    if (!rows[0]) throw new Error(`${dataset.name}: no live transaction with a webhook`)
    return { id: String(rows[0].id), reference: rows[0].merchant_transaction_id as string }
  } finally {
    await sql.end()
  }
}

const at = (text: string) => encodeURIComponent(text)
const manila = (date: string) => at(`${date}T00:00:00+08:00`)
const end = DATASET_END.toISODate()!
const yearBefore = DATASET_END.minus({ years: 1 }).toISODate()!
const dayBefore = DATASET_END.minus({ years: 1, days: 1 }).toISODate()!
const monthsFrom = DATASET_END.startOf('month').plus({ months: 1 })
const collections = '/api/v1/portal/collections'
const reporting = 'environment=live&currency=PHP&timezone=Asia%2FManila'
const routes = (id: string): Record<string, string> => ({
  list_first: `${collections}/transactions?environment=live`,
  list_month: `${collections}/transactions?environment=live&from=${manila('2026-10-01')}&to=${manila('2026-11-01')}`,
  list_status: `${collections}/transactions?environment=live&status=PAID`,
  detail: `${collections}/transactions/${id}?environment=live`,
  history: `${collections}/transactions/${id}/history?environment=live`,
  metrics_year: `${collections}/metrics?${reporting}&from=${manila(yearBefore)}&to=${manila(end)}`,
  chart_day: `${collections}/charts?${reporting}&interval=day&from=${manila(dayBefore)}&to=${manila(end)}`,
  chart_month: `${collections}/charts?${reporting}&interval=month&from=${manila(monthsFrom.minus({ years: 10 }).toISODate()!)}&to=${manila(monthsFrom.toISODate()!)}`,
})

const described = {
  small: await describe(datasets.small, datasets.small.merchantIds[0]),
  large: await describe(datasets.large, datasets.large.merchantIds[0]),
}
const targets = {
  small: await targetTransaction(datasets.small),
  large: await targetTransaction(datasets.large),
}

await assertPortsFree(PORT, PORT + 1)
const servers = {
  small: await startProductionServer({
    port: PORT,
    appKey: APP_KEY,
    env: { DATABASE_URL: datasets.small.url },
  }),
  large: await startProductionServer({
    port: PORT + 1,
    appKey: APP_KEY,
    env: { DATABASE_URL: datasets.large.url },
  }),
}
const measured: Record<string, number | null> = {}
const results: Array<Record<string, unknown>> = []
const rows: string[] = []
try {
  const headers = {
    small: { authorization: `Bearer ${await developerToken(datasets.small, servers.small.base)}` },
    large: { authorization: `Bearer ${await developerToken(datasets.large, servers.large.base)}` },
  }
  const paths = { small: routes(targets.small.id), large: routes(targets.large.id) }
  for (const route of Object.keys(paths.small)) {
    const options = (size: Size) => ({
      url: servers[size].base + paths[size][route],
      headers: headers[size],
      connections: CONNECTIONS,
      timeout: 120,
    })
    for (const size of SIZES) await timed(options(size).url, { headers: headers[size] })
    if (WARM_UP_SECONDS > 0) {
      for (const size of SIZES) await cannon({ ...options(size), duration: WARM_UP_SECONDS })
    }
    // Single requests alternating, until SINGLE each or SINGLE_SECONDS (5 at least).
    const singles: Record<Size, number[]> = { small: [], large: [] }
    const until = performance.now() + SINGLE_SECONDS * 1000
    for (let index = 0; index < SINGLE && (index < 5 || performance.now() < until); index++) {
      for (const size of index % 2 === 0 ? SIZES : [...SIZES].reverse()) {
        singles[size].push(await timed(options(size).url, { headers: headers[size] }))
      }
    }
    const rounds: Record<Size, CannonRound[]> = { small: [], large: [] }
    for (let index = 0; index < ROUNDS; index++) {
      for (const size of index % 2 === 0 ? SIZES : [...SIZES].reverse()) {
        rounds[size].push(await cannon({ ...options(size), duration: SECONDS }))
      }
    }
    const single = { small: median(singles.small), large: median(singles.large) }
    const load = { small: summary(rounds.small), large: summary(rounds.large) }
    const ratio = (large: number | null, small: number | null) =>
      large !== null && small ? +(large / small).toFixed(2) : null
    const row = {
      route,
      single_requests: singles.small.length,
      single_p50_ms: single,
      p50_ratio: ratio(single.large, single.small),
      requests_per_second: {
        small: load.small.requests_per_second,
        large: load.large.requests_per_second,
      },
      requests_per_second_ratio: ratio(
        load.large.requests_per_second,
        load.small.requests_per_second
      ),
      loaded_p50_p99_ms: {
        small: [load.small.p50_ms, load.small.p99_ms],
        large: [load.large.p50_ms, load.large.p99_ms],
      },
      non_2xx: { small: load.small.non_2xx, large: load.large.non_2xx },
    }
    results.push(row)
    for (const size of SIZES) {
      measured[`${route} ${size} single p50`] = single[size]
      measured[`${route} ${size} req/s`] = load[size].requests_per_second
    }
    const met = (value: number | null, ok: (figure: number) => boolean) =>
      value === null ? '-' : ok(value) ? 'met' : '**missed**'
    rows.push(
      `| ${route} | ${single.small} / ${single.large} | ${row.p50_ratio}x ${met(row.p50_ratio, (figure) => figure <= 1.25)} | ${load.small.requests_per_second} / ${load.large.requests_per_second} | ${row.requests_per_second_ratio}x ${met(row.requests_per_second_ratio, (figure) => figure >= 0.8)} | ${load.small.p50_ms} / ${load.small.p99_ms} | ${load.large.p50_ms} / ${load.large.p99_ms} | ${load.small.non_2xx} / ${load.large.non_2xx} |`
    )
    console.error(rows.at(-1))
  }
} finally {
  servers.small.stop()
  servers.large.stop()
}

const labels = { small: sizeLabel(SMALL), large: sizeLabel(LARGE) }
console.log(
  `\n${startedAt.toISOString().slice(0, 16)}Z, ${machine()}; ${labels.small} (${datasets.small.name}) and ` +
    `${labels.large} (${datasets.large.name}) transactions, the large merchant's ` +
    `${described.small.large_merchant_transactions} and ${described.large.large_merchant_transactions}; ` +
    `${SINGLE} single requests (or ${SINGLE_SECONDS} s) and ${ROUNDS} alternating rounds of ${SECONDS} s at ` +
    `${CONNECTIONS} connections per route; load average 1/5/15 min ${loadAtStart.join(' / ')} at the start, ` +
    `${loadAverage().join(' / ')} at the end\n`
)
console.log(
  `| route | single p50 ms ${labels.small} / ${labels.large} | p50 ${labels.large} ÷ ${labels.small} (goal ≤ 1.25x) | req/s ${labels.small} / ${labels.large} | req/s ${labels.large} ÷ ${labels.small} (goal ≥ 0.8x) | ${labels.small} p50 / p99 ms under load | ${labels.large} p50 / p99 ms under load | non-2xx |`
)
console.log('|---|---|---|---|---|---|---|---|')
for (const row of rows) console.log(row)
console.log(importTable(datasets.small))
console.log(importTable(datasets.large))
const growth = importFigures(datasets.large)
console.log(
  `\nGoal 2 (the large dataset's last chunk ÷ its first, at most 1.1x): ${growth.last_to_first ?? '-'}x\n`
)
console.log(
  JSON.stringify({
    date: startedAt.toISOString(),
    machine: machine(),
    load_average: { start: loadAtStart, end: loadAverage() },
    datasets: { small: described.small, large: described.large },
    transactions: { small: targets.small.reference, large: targets.large.reference },
    reads: results,
    imports: { small: importFigures(datasets.small), large: growth },
  })
)
for (const dataset of [datasets.small, datasets.large]) {
  for (const chunk of dataset.chunks) {
    measured[`${dataset.name} chunk ${chunk.chunk} import s`] = chunk.import_seconds
  }
}
expectFigures('growth', measured)
