/*
| Benchmark (on demand; its smoke mode in CI): a long soak of mixed load from several
| merchants (issue 38 › bench/soak.ts, goal 3). Does the service hold its memory,
| its latencies and its answers over time, or does something grow?
|
|   npm run build
|   createdb mp_soak
|   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mp_soak \
|     node --import=@poppinss/ts-exec bench/soak.ts [--minutes=30] [--window-minutes=5]
|
| The server is the production build (bench/production_server.ts: limits scaled out of
| the way) with its Prometheus listener on --port + 1. Set up once per run: --merchants
| merchants (3), each with an administrator and a developer (PATs issued directly) and
| --transactions (1,000) synthetic transactions with three events each, loaded through
| `node ace collections:import` as an operator would.
|
| The load, open loop (each stream sends on its own schedule whether or not earlier
| requests were answered, the merchants in turn), for
| --warm-up-seconds (60, not counted) and then --minutes cut into windows of
| --window-minutes:
| - reads, --reads-per-second (20) in all, each the next of: GET /portal/me, the
|   transactions list (first page, and `status=PAID`), a transaction's detail and its
|   history page, the metrics of a year, a daily chart of 90 days, a monthly chart of
|   a year;
| - logins, --logins-per-minute (240), right and wrong passwords in turn;
| - logo uploads by the administrators: --uploads-per-minute (120) of a 64 x 64 PNG,
|   and --tall-pngs-per-minute (120) of the 1 x 16,777,216 PNG of issue 38 (65 KB), which
|   the server must refuse with 422 before decoding it;
| - `node ace collections:import` of --import-transactions (200) new transactions of
|   the first merchant every --import-every-minutes (half a window), half of them with evidence
|   already past its retention, and `node ace history:purge` every
|   --purge-every-minutes (a window), which purges that evidence; both from the build, as
|   cron would run them.
| The rates give every route at least 600 answers a 5-minute window (750 of each read,
| 600 logins of each kind, 600 uploads of each), so that a window's p99 is its 6th-9th
| slowest answer: at the earlier 120 uploads a window it was the second slowest, and it
| moved by half or more from one window to the next with nothing changing in the server.
| Every window holds the same commands (two imports, one purge).
| --arrivals (poisson): each stream's sends are a Poisson process at its rate (the gaps
| drawn at random), as independent clients arrive; `even` sends at exact intervals from
| a random phase, as runs up to N did. Even streams keep their phase for the whole run,
| so which of their sends meet is drawn once at the start: the tall PNG's 422 took over
| 10 ms in 4 % to 50 % of its answers from one run to the next, never tied to what the
| runs changed (bench/results/soak_2026-11-29.md). The commands and scrapes stay periodic.
| A stream never has more than 64 requests in flight; a send beyond that is skipped
| and counted (it would mean the server stopped keeping up).
|
| The control, --control-per-second (2.5, each read route's rate; 0 leaves it out):
| `GET /portal/me` of the plain peer (bench/peers/plain_server.ts: `node:http` + `pg`,
| the same statements) with the same PATs, on the same machine and database, beside
| the load. Its last window against its first is what the host and the sampling alone
| do to a p99 of that many answers, with nothing of the service's in it: a route of
| ours missing the goal by no more than the control moves says nothing about the
| service. Reported beside the routes; not a goal, not in the totals.
|
| Each window prints the server's RSS and heap used (mean and max of the scrapes), the
| V8 heap's size and the memory outside it (external buffers; means), to tell what grows,
| its event-loop delay (from prom-client's monitorEventLoopDelay, which each scrape
| resets: p50 is the median of the scrapes' p50s, p99 the highest of their p99s, an
| upper bound of the window's), and per route p50/p99 (ms, over the answers other
| than load shedding), the answers by status, the 503s with Retry-After (shed), and
| every other 5xx; beside the p99, how many answers were in flight while an import or
| a purge ran and the p99 of the others, the server's own timing of each route (its
| histogram), this process's event-loop delay, the machine's speed (a canary: the
| median time of a SHA-256 of 1 MiB, once a second) and its reclaim (major faults and
| file pages read back after eviction, /proc/vmstat), and the host's interference (the
| cores' steal time, /proc/stat, and the CPU pressure, /proc/pressure/cpu: the share of
| the time some task here waited for a core); diagnostics, not the goal. At the
| end: the last window against the first (RSS ratio, goal
| at most 1.1×; p99 per route, at most 1.2×, with the ratio's 95 % bootstrap interval
| (bench/ratio_interval.ts), which says whether the run could tell a miss from the
| windows' noise; 5xx other than shedding, 0), and with
| --json=FILE the whole report there. The goals are reported, not enforced: the exit
| is non-zero only when the run broke (setup, the server stopped answering
| /health/live, a command failed, a route had no request in a window).
|
| The load generator sends with node:http over kept-alive connections (one Agent), each
| stream's requests built once, bodies included, rather than with fetch: on the two cores
| it shares with the server, the generator's CPU is taken from the server's. In two
| six-minute runs on one host (bench/results/soak_2026-12-01.md) fetch took 5.6-6.0 % of a
| core and node:http 3.5-3.9 %, and every route's p50 was 0.1-0.5 ms lower with it. Each
| window prints this process's CPU and the server's (`process_cpu_seconds_total`), as a
| share of one core.
|
| This process's main thread, the load generator and the only one timing answers, runs
| at nice --generator-nice (-10; 0 leaves it) once the server is up, as noisy_neighbour's
| merchant B does: the clients it stands for are on other machines, and at the server's
| priority its own wait for one of the two shared cores (its event loop's delay reached
| 50-110 ms in runs H and I) was counted as the server's latency. Its V8 helper threads
| (garbage collection) and the server keep the default priority; the ace commands are
| started through `nice`, back at the server's level, and lower themselves from there
| as in production (BATCH_COMMAND_NICE, docs/operations.md › CPU priorities).
|
| Knobs (defaults in brackets): --minutes (30) --window-minutes (5) --warm-up-seconds (60)
|   --merchants (3) --transactions (1000) --reads-per-second (20) --control-per-second (2.5)
|   --logins-per-minute (240)
|   --uploads-per-minute (120) --tall-pngs-per-minute (120) --import-transactions (200)
|   --import-every-minutes (window / 2) --purge-every-minutes (window) --scrape-seconds (15)
|   --port (3424; metrics +1) --generator-nice (-10) --arrivals (poisson | even) --json=FILE
| --smoke (CI): 2 windows of 10 s after 2 s of warm-up, even arrivals, 30 transactions per merchant,
|   an import and a purge within the run, and a check that every route, the scrapes
|   and both commands measured something.
*/
import { execFile } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import { DateTime } from 'luxon'
import { bootApp } from './boot_app.js'
import { syntheticLines } from './collections_synthetic.js'
import {
  assertPortsFree,
  flag,
  loadAverage,
  machine,
  numberFlag,
  percentile,
  round1,
  setMainThreadPriority,
  startPeer,
} from './load_tools.js'
import { percentileRatioInterval } from './ratio_interval.js'
import { startProductionServer } from './production_server.js'
import { expectFigures, sized } from './smoke.js'

const run = promisify(execFile)

const MINUTES = numberFlag('minutes', sized(30, 20 / 60))
const WINDOW_MINUTES = numberFlag('window-minutes', sized(5, 10 / 60))
const WARM_UP_SECONDS = numberFlag('warm-up-seconds', sized(60, 2))
const MERCHANTS = numberFlag('merchants', 3)
const TRANSACTIONS = numberFlag('transactions', sized(1000, 30))
const READS_PER_SECOND = numberFlag('reads-per-second', sized(20, 8))
const LOGINS_PER_MINUTE = numberFlag('logins-per-minute', sized(240, 60))
const UPLOADS_PER_MINUTE = numberFlag('uploads-per-minute', sized(120, 20))
const TALL_PNGS_PER_MINUTE = numberFlag('tall-pngs-per-minute', sized(120, 12))
const IMPORT_TRANSACTIONS = numberFlag('import-transactions', sized(200, 10))
// Periods that divide the window: every window holds the same commands.
const IMPORT_EVERY_MINUTES = numberFlag('import-every-minutes', sized(WINDOW_MINUTES / 2, 10 / 60))
const PURGE_EVERY_MINUTES = numberFlag('purge-every-minutes', sized(WINDOW_MINUTES, 20 / 60))
const SCRAPE_SECONDS = numberFlag('scrape-seconds', sized(15, 2))
// The control: as many answers a window as each read route, so its p99 is as noisy.
const CONTROL_PER_SECOND = numberFlag('control-per-second', sized(20 / 8, 1))
const PORT = numberFlag('port', 3424)
const GENERATOR_NICE = numberFlag('generator-nice', -10)
if (!Number.isInteger(GENERATOR_NICE) || GENERATOR_NICE < -20 || GENERATOR_NICE > 0)
  throw new Error('--generator-nice is an integer from -20 to 0')
// Even in the smoke run: its windows of 10 s hold two to four sends of a stream, and a
// Poisson stream then sends none in a window often enough to fail CI.
const ARRIVALS = arrivalsFlag()
const JSON_FILE = flag('json', '')
const MAX_IN_FLIGHT = 64
const WINDOWS = Math.max(1, Math.round(MINUTES / WINDOW_MINUTES))
const WINDOW_MS = WINDOW_MINUTES * 60_000
const APP_KEY = process.env.APP_KEY ?? 'bench-app-key-0123456789abcdef0123456789'
process.env.APP_KEY = APP_KEY
const WRONG_PASSWORD = 'not-the-password-1A!'

const cell = (value: unknown) => (value === null || value === undefined ? '–' : String(value))
const startedAt = new Date()
const loadAtStart = loadAverage()
const progress = (what: string) =>
  console.error(`[soak ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s] ${what}`)
/** The run broke (not a missed goal): said at the end, and the exit is non-zero. */
const broken: string[] = []

/** `node ace.js <args>` from the build, as an operator's cron runs it. */
async function ace(...args: string[]) {
  const started = performance.now()
  // Once this process runs at a raised priority, its children would inherit it.
  const [file, ...argv] = [
    ...(generatorNice === 0 ? [] : ['nice', '-n', String(-generatorNice)]),
    process.execPath,
    'ace.js',
    ...args,
  ]
  const { stdout } = await run(file, argv, {
    cwd: 'build',
    env: { ...process.env, NODE_ENV: 'production' },
    maxBuffer: 16 * 2 ** 20,
  })
  return { seconds: round1((performance.now() - started) / 1000), stdout: stdout.trim() }
}

/** This process's nice level: 0 until the server is up. */
let generatorNice = 0

const work = mkdtempSync(join(tmpdir(), 'soak-'))
/**
 * A JSON Lines file of `count` new transactions per merchant (three events each). With
 * `expired`, every other transaction's evidence is past its retention already, so that
 * the next `history:purge` has work to do.
 */
function importFile(
  name: string,
  merchantIds: number[],
  count: number,
  seed: number,
  expired = false
) {
  const lines: string[] = []
  const retainUntil = new Date(Date.now() - 3_600_000).toISOString()
  for (const [index, merchantId] of merchantIds.entries()) {
    let position = 0
    for (const line of syntheticLines({
      merchantId,
      transactions: count,
      events: count * 3,
      seed: seed * 100 + index,
      prefix: `SOAK-${name}`,
    })) {
      // The generator leaves a few amounts null; a PAID one makes the metrics and
      // charts of its range 503 by contract (docs/reporting.md), which is not what this measures.
      line.amount ??= '100.00'
      if (expired && position++ % 2 === 1) {
        const events = line.events as Array<Record<string, unknown>>
        line.events = events.map((event) => ({ ...event, retain_until: retainUntil }))
      }
      lines.push(JSON.stringify(line))
    }
  }
  const file = join(work, `${name}.jsonl`)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

// Setup: merchants, members, their transactions through the real import.
await ace('migration:run', '--force')
const { shutdown } = await bootApp()
const { default: db } = await import('@adonisjs/lucid/services/db')
const { default: Merchant } = await import('#models/merchant')
const { appHeaders, createMerchantWithUser, createPortalClient, issuePat } =
  await import('#tests/helpers/portal')
const { handMadeGreyPng } = await import('#tests/helpers/images')
const { createBenchMerchant } = await import('./collections_dataset.js')

const portalClient = await createPortalClient()
const patMinutes = Math.ceil(MINUTES + WARM_UP_SECONDS / 60) + 60
interface SoakMember {
  username: string
  password: string
  bearer: string
}
interface SoakMerchant {
  id: number
  administrator: SoakMember
  developer: SoakMember
  /** Live transactions with evidence, for the detail and history reads. */
  transactionIds: string[]
}
const merchants: SoakMerchant[] = []
for (let index = 0; index < MERCHANTS; index++) {
  const merchant = await Merchant.findOrFail(
    await createBenchMerchant(`Soak Merchant ${index + 1}`)
  )
  const member = async (role: 'administrator' | 'developer') => {
    const { user, password } = await createMerchantWithUser({ role, merchant })
    const pat = await issuePat(user, portalClient, { minutes: patMinutes })
    return { username: user.username!, password, bearer: `Bearer ${pat}` }
  }
  merchants.push({
    id: merchant.id,
    administrator: await member('administrator'),
    developer: await member('developer'),
    transactionIds: [],
  })
}
const merchantIds = merchants.map((merchant) => merchant.id)
const loaded = await ace('collections:import', importFile('setup', merchantIds, TRANSACTIONS, 1))
progress(`setup import: ${loaded.stdout.split('\n').at(-1)} in ${loaded.seconds} s`)
for (const merchant of merchants) {
  const rows = await db
    .from('exchange_evidence')
    .where({ merchant_id: merchant.id, environment: 'live' })
    .distinct('transaction_id')
    .limit(200)
  merchant.transactionIds = rows.map((row: { transaction_id: string | number }) =>
    String(row.transaction_id)
  )
  if (merchant.transactionIds.length === 0)
    throw new Error('the setup import stored no live evidence')
}
await shutdown()
const logo = handMadeGreyPng(64, 64)
const tallPng = handMadeGreyPng(1, 16_777_216)

await assertPortsFree(PORT, PORT + 1, PORT + 2)
const server = await startProductionServer({
  port: PORT,
  appKey: APP_KEY,
  env: { METRICS_PORT: String(PORT + 1) },
})
process.on('exit', server.stop)
// Started before this process raises its priority, which children would inherit.
const controlPeer =
  CONTROL_PER_SECOND > 0
    ? await startPeer('bench/peers/plain_server.ts', PORT + 2, {
        APP_KEY,
        RATE_LIMIT_MULTIPLIER: '100000',
      })
    : null
process.on('exit', () => controlPeer?.stop())
if (GENERATOR_NICE !== 0 && setMainThreadPriority(GENERATOR_NICE)) generatorNice = GENERATOR_NICE
else if (GENERATOR_NICE !== 0)
  progress(`could not raise this process's priority (nice ${GENERATOR_NICE}): it stays at 0`)
const base = server.base
const metricsBase = `http://127.0.0.1:${PORT + 1}`
progress(`server up; ${MERCHANTS} merchants of ${TRANSACTIONS} transactions`)

// The reads, in the order each merchant's developer goes through them.
const collections = '/api/v1/portal/collections'
const zone = 'UTC+8'
const day = DateTime.now().setZone(zone).startOf('day').plus({ days: 1 })
const at = (time: DateTime) => encodeURIComponent(time.toISO({ suppressMilliseconds: true })!)
const reporting = `environment=live&currency=PHP`
const year = `from=${at(day.minus({ years: 1 }))}&to=${at(day)}`
const pick = (list: string[]) => list[Math.floor(Math.random() * list.length)]
const reads: Array<{ route: string; path: (merchant: SoakMerchant) => string }> = [
  { route: 'GET /portal/me', path: () => '/api/v1/portal/me' },
  { route: 'GET transactions', path: () => `${collections}/transactions?environment=live` },
  {
    route: 'GET transactions status=PAID',
    path: () => `${collections}/transactions?environment=live&status=PAID`,
  },
  {
    route: 'GET transaction detail',
    path: (merchant) =>
      `${collections}/transactions/${pick(merchant.transactionIds)}?environment=live`,
  },
  {
    route: 'GET history page',
    path: (merchant) =>
      `${collections}/transactions/${pick(merchant.transactionIds)}/history?environment=live`,
  },
  { route: 'GET metrics (a year)', path: () => `${collections}/metrics?${reporting}&${year}` },
  {
    route: 'GET chart (90 days by day)',
    path: () =>
      `${collections}/charts?${reporting}&interval=day&from=${at(day.minus({ days: 90 }))}&to=${at(day)}`,
  },
  {
    route: 'GET chart (a year by month)',
    path: () => `${collections}/charts?${reporting}&interval=month&${year}`,
  },
]

const ROUTES = [
  ...reads.map((read) => read.route),
  'POST login (right password)',
  'POST login (wrong password)',
  'POST logo (64 x 64 PNG)',
  'POST logo (1 x 16,777,216 PNG)',
] as const
/** The control's route: not the service's, not a goal (the header says why). */
const CONTROL = 'control: GET /portal/me of the plain peer'
/** Every route a window reports: the service's, then the control when it runs. */
const REPORTED = controlPeer ? [...ROUTES, CONTROL] : [...ROUTES]
type Route = (typeof ROUTES)[number] | typeof CONTROL

interface Sample {
  route: Route
  at: number
  ms: number
  status: number
  retryAfter: boolean
  /** The status the stream expects (a read 200, a wrong password 401, the tall PNG 422). */
  expected: number
}
const samples: Sample[] = []
const skipped: Record<string, number> = {}

/** A request as a stream sends it: built once (its body too), sent many times. */
interface Outgoing {
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: Buffer
}
// node:http over kept-alive connections rather than fetch: on the two cores the server
// shares with this process, every bit of the generator's own CPU is taken from the
// server when it needs it (the header says how much fetch took).
const agent = new http.Agent({ keepAlive: true })

function send(route: Route, expected: number, url: string, outgoing: Outgoing = {}) {
  const sentAt = performance.now()
  return new Promise<void>((resolve) => {
    let answered = false
    const record = (status: number, retryAfter: boolean) => {
      if (answered) return
      answered = true
      samples.push({
        route,
        at: sentAt,
        ms: performance.now() - sentAt,
        status,
        retryAfter,
        expected,
      })
      resolve()
    }
    const headers = outgoing.body
      ? { ...outgoing.headers, 'content-length': String(outgoing.body.length) }
      : outgoing.headers
    const request = http.request(
      url,
      { method: outgoing.method ?? 'GET', headers, agent },
      (response) => {
        response.once('end', () =>
          record(response.statusCode ?? 0, response.headers['retry-after'] !== undefined)
        )
        response.once('error', () => record(0, false))
        response.resume()
      }
    )
    request.once('error', () => record(0, false))
    request.end(outgoing.body)
  })
}

type Arrivals = 'poisson' | 'even'

function arrivalsFlag(): Arrivals {
  const value = flag('arrivals', sized('poisson', 'even'))
  if (value === 'poisson' || value === 'even') return value
  throw new Error('--arrivals is poisson or even')
}

/** The gap before a stream's next send: its mean interval, drawn at random for Poisson arrivals. */
function nextGap(intervalMs: number, arrivals: Arrivals) {
  return arrivals === 'poisson' ? -Math.log(1 - Math.random()) * intervalMs : intervalMs
}

/**
 * Calls `request(n)` every `intervalMs`, on average for Poisson arrivals (n = 0, 1, ...),
 * until stopped, open loop; the first after `firstMs` (when not given: a random gap, or
 * a random phase within the interval for even arrivals).
 */
function stream(
  name: string,
  intervalMs: number,
  request: (n: number) => Promise<void>,
  {
    arrivals = ARRIVALS,
    firstMs = arrivals === 'poisson' ? nextGap(intervalMs, arrivals) : Math.random() * intervalMs,
  }: { arrivals?: Arrivals; firstMs?: number } = {}
) {
  let running = true
  const stopped = new AbortController()
  const inFlight = new Set<Promise<void>>()
  const loop = (async () => {
    let due = performance.now() + firstMs
    for (let n = 0; running; n++) {
      await delay(Math.max(0, due - performance.now()), undefined, {
        signal: stopped.signal,
      }).catch(() => {})
      if (!running) break
      due += nextGap(intervalMs, arrivals)
      if (inFlight.size >= MAX_IN_FLIGHT) {
        skipped[name] = (skipped[name] ?? 0) + 1
        continue
      }
      const sent = request(n).finally(() => inFlight.delete(sent))
      inFlight.add(sent)
    }
  })()
  return async () => {
    running = false
    stopped.abort()
    await loop
    await Promise.all(inFlight)
  }
}

/** A logo upload: multipart/form-data with one part, `file`. */
function upload(bearer: string, bytes: Buffer): Outgoing {
  const boundary = `soak-${randomUUID()}`
  const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="logo.png"\r\ncontent-type: image/png\r\n\r\n`
  return {
    method: 'POST',
    headers: {
      'authorization': bearer,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
    body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  }
}
const login = (username: string, password: string): Outgoing => ({
  method: 'POST',
  headers: { ...appHeaders(portalClient), 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify({ username, password })),
})
const outgoing = merchants.map(({ administrator, developer }) => ({
  read: { headers: { authorization: developer.bearer } },
  rightLogin: login(developer.username, developer.password),
  wrongLogin: login(developer.username, WRONG_PASSWORD),
  logo: upload(administrator.bearer, logo),
  tallPng: upload(administrator.bearer, tallPng),
}))
const nth = (n: number) => merchants[n % merchants.length]
/** The n-th merchant's requests, built once. */
const nthOutgoing = (n: number) => outgoing[n % merchants.length]

interface Scrape {
  at: number
  rssMiB: number
  heapUsedMiB: number
  heapTotalMiB: number
  /** The young generation's and the old space's committed sizes: which part of the heap grows. */
  newSpaceMiB: number
  oldSpaceMiB: number
  externalMiB: number
  loopP50Ms: number
  loopP99Ms: number
  loopMaxMs: number
  /** The server's CPU seconds so far (every thread). */
  cpuSeconds: number
}
const scrapes: Scrape[] = []
/** Records one scrape of the server's metrics; returns their text ('' when it failed). */
async function scrape(): Promise<string> {
  const text = await fetch(`${metricsBase}/metrics`)
    .then((response) => response.text())
    .catch(() => null)
  if (text === null) return ''
  const value = (name: string) => {
    const match = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)
    return match ? Number(match[1]) : Number.NaN
  }
  scrapes.push({
    at: performance.now(),
    rssMiB: round1(value('process_resident_memory_bytes') / 2 ** 20),
    heapUsedMiB: round1(value('nodejs_heap_size_used_bytes') / 2 ** 20),
    heapTotalMiB: round1(value('nodejs_heap_size_total_bytes') / 2 ** 20),
    newSpaceMiB: round1(value('nodejs_heap_space_size_total_bytes\\{space="new"\\}') / 2 ** 20),
    oldSpaceMiB: round1(value('nodejs_heap_space_size_total_bytes\\{space="old"\\}') / 2 ** 20),
    externalMiB: round1(value('nodejs_external_memory_bytes') / 2 ** 20),
    loopP50Ms: round1(value('nodejs_eventloop_lag_p50_seconds') * 1000),
    loopP99Ms: round1(value('nodejs_eventloop_lag_p99_seconds') * 1000),
    loopMaxMs: round1(value('nodejs_eventloop_lag_max_seconds') * 1000),
    cpuSeconds: value('process_cpu_seconds_total'),
  })
  return text
}

interface CommandRun {
  command: string
  /** When it started and ended (performance.now()). */
  startedAt: number
  at: number
  seconds: number
  ok: boolean
  output: string
}
const commands: CommandRun[] = []
/**
 * Runs an ace command every `everyMs` (the first after half of it); a run belongs to
 * the window it ended in.
 */
function periodic(command: string, everyMs: number, args: (n: number) => string[]) {
  return stream(
    command,
    everyMs,
    async (n) => {
      const commandStartedAt = performance.now()
      try {
        const { seconds, stdout } = await ace(command, ...args(n))
        commands.push({
          command,
          startedAt: commandStartedAt,
          at: performance.now(),
          seconds,
          ok: true,
          output: stdout.split('\n').at(-1) ?? '',
        })
      } catch (error) {
        const message = (error as { stderr?: string }).stderr?.trim().split('\n').at(-1)
        commands.push({
          command,
          startedAt: commandStartedAt,
          at: performance.now(),
          seconds: 0,
          ok: false,
          output: message ?? String(error),
        })
        broken.push(`${command} failed: ${message ?? error}`)
      }
    },
    { arrivals: 'even', firstMs: everyMs / 2 }
  )
}

// The load.
const windowsStart = performance.now() + WARM_UP_SECONDS * 1000
const stops = [
  stream('reads', 1000 / READS_PER_SECOND, (n) => {
    const read = reads[Math.floor(n / merchants.length) % reads.length]
    return send(read.route, 200, `${base}${read.path(nth(n))}`, nthOutgoing(n).read)
  }),
  stream('logins', 60_000 / LOGINS_PER_MINUTE, (n) => {
    const requests = nthOutgoing(Math.floor(n / 2))
    return n % 2 === 0
      ? send('POST login (right password)', 200, `${base}/api/v1/auth/login`, requests.rightLogin)
      : send('POST login (wrong password)', 401, `${base}/api/v1/auth/login`, requests.wrongLogin)
  }),
  stream('uploads', 60_000 / UPLOADS_PER_MINUTE, (n) =>
    send('POST logo (64 x 64 PNG)', 200, `${base}/api/v1/portal/merchant/logo`, nthOutgoing(n).logo)
  ),
  stream('tall PNGs', 60_000 / TALL_PNGS_PER_MINUTE, (n) =>
    send(
      'POST logo (1 x 16,777,216 PNG)',
      422,
      `${base}/api/v1/portal/merchant/logo`,
      nthOutgoing(n).tallPng
    )
  ),
  ...(controlPeer
    ? [
        stream('control', 1000 / CONTROL_PER_SECOND, (n) =>
          send(CONTROL, 200, `${controlPeer.base}/api/v1/portal/me`, nthOutgoing(n).read)
        ),
      ]
    : []),
  periodic('collections:import', IMPORT_EVERY_MINUTES * 60_000, (n) => [
    importFile(`import-${n}`, merchantIds.slice(0, 1), IMPORT_TRANSACTIONS, n + 2, true),
  ]),
  periodic('history:purge', PURGE_EVERY_MINUTES * 60_000, () => []),
  stream(
    'scrapes',
    SCRAPE_SECONDS * 1000,
    async () => {
      await scrape()
    },
    { arrivals: 'even' }
  ),
]

/**
 * The server's own timing of each route (its request-duration histogram, from request
 * received to response finished): answers, and how many took over 10 and 25 ms. Beside
 * the p99s measured here, it tells a tail the server's handlers spent from one spent
 * before the server read the request or in this process.
 */
type ServerTimings = Map<string, { count: number; within10: number; within25: number }>
function serverTimings(text: string): ServerTimings {
  const timings: ServerTimings = new Map()
  const series = /^portal_http_request_duration_seconds_(bucket|count)\{(.*)\} ([0-9.e+-]+)$/gm
  for (const [, kind, labels, value] of text.matchAll(series)) {
    const route = /route="([^"]*)"/.exec(labels)?.[1]
    const status = /status="([^"]*)"/.exec(labels)?.[1]
    const key = `${route} ${status}`
    const entry = timings.get(key) ?? { count: 0, within10: 0, within25: 0 }
    if (kind === 'count') entry.count = Number(value)
    else if (labels.includes('le="0.01"')) entry.within10 = Number(value)
    else if (labels.includes('le="0.025"')) entry.within25 = Number(value)
    timings.set(key, entry)
  }
  return timings
}
function serverTimingsBetween(before: ServerTimings, after: ServerTimings) {
  const rows: Record<string, { n: number; over_10_ms: number; over_25_ms: number }> = {}
  for (const [key, late] of after) {
    const early = before.get(key) ?? { count: 0, within10: 0, within25: 0 }
    const n = late.count - early.count
    if (n <= 0 || key.startsWith('health')) continue
    rows[key] = {
      n,
      over_10_ms: n - (late.within10 - early.within10),
      over_25_ms: n - (late.within25 - early.within25),
    }
  }
  return rows
}

// This process's own event-loop delay: an answer that arrives while this process is
// busy (generating an import file, a scrape, its own GC) is timed late.
const generatorLoop = monitorEventLoopDelay({ resolution: 10 })
generatorLoop.enable()

// The machine's speed, as a canary: once a second, the time of the same small piece of
// CPU work (SHA-256 over 1 MiB). Its median moving from window to window means the
// virtual machine's cores ran faster or slower, which moves every route's p50 and p99
// with it, whatever the server does.
const canaryBytes = Buffer.alloc(2 ** 20, 7)
const canary: Array<{ at: number; ms: number }> = []
// The host's interference, read beside the canary: the cores' steal time (the hypervisor
// ran another guest while one of ours was ready to run) and this machine's CPU pressure
// (the time at least one task waited for a core). Both come in bursts that no process
// here causes or sees: on 2026-12-01 the steal reached 38 % of the cores in one second.
const hostSeconds: Array<{ at: number; stealMs: number; pressureMs: number | null; ms: number }> =
  []
let hostBefore = hostCounters()
const canaryTimer = setInterval(() => {
  const started = performance.now()
  createHash('sha256').update(canaryBytes).digest()
  canary.push({ at: started, ms: performance.now() - started })
  const host = hostCounters()
  if (host && hostBefore) {
    hostSeconds.push({
      at: started,
      ms: host.at - hostBefore.at,
      stealMs: host.stealMs - hostBefore.stealMs,
      pressureMs:
        host.pressureMs === null || hostBefore.pressureMs === null
          ? null
          : host.pressureMs - hostBefore.pressureMs,
    })
  }
  hostBefore = host
}, 1000)
/** Machine-wide: the cores' steal time (/proc/stat) and CPU pressure (/proc/pressure/cpu), in ms. */
function hostCounters() {
  try {
    // cpu user nice system idle iowait irq softirq steal …, in USER_HZ (100 a second).
    const steal = Number(
      readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/)[8]
    )
    let pressureMs: number | null = null
    try {
      const total = /^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1]
      if (total) pressureMs = Number(total) / 1000
    } catch {
      // No PSI on this kernel.
    }
    return Number.isFinite(steal)
      ? { at: performance.now(), stealMs: steal * 10, pressureMs }
      : null
  } catch {
    return null
  }
}
// The machine's reclaim, as a second canary: a host that pages out memory it finds
// cold (this one's kernel runs DAMON's pageout scheme: bench/results/soak_2026-11-30.md)
// makes later windows read back code and database pages that the first still held.
// Machine-wide counters from /proc/vmstat (null where there are none).
function reclaimCounters() {
  try {
    const counters = new Map(
      readFileSync('/proc/vmstat', 'utf8')
        .split('\n')
        .map((line) => line.split(' ') as [string, string])
        .map(([name, value]) => [name, Number(value)])
    )
    return {
      majorFaults: counters.get('pgmajfault') ?? 0,
      refaultedFilePages: counters.get('workingset_refault_file') ?? 0,
    }
  } catch {
    return null
  }
}
const reclaimAtBoundary: Array<ReturnType<typeof reclaimCounters>> = []
const generatorLoopAtWindow: Array<{ p99_ms: number; max_ms: number }> = []
// This process's CPU (every thread: its collector's helpers take a core too), as a share
// of one core per window: what the load generator takes from the two cores it shares.
const generatorCpuAtWindow: number[] = []
const serverTimingsAtWindow: Array<ReturnType<typeof serverTimingsBetween>> = []

const loadAtWindow: number[][] = []
try {
  await delay(WARM_UP_SECONDS * 1000)
  // A scrape resets the loop histogram: the windows start here.
  let timingsBefore = serverTimings(await scrape())
  generatorLoop.reset()
  let cpuBefore = process.cpuUsage()
  let cpuAt = performance.now()
  reclaimAtBoundary.push(reclaimCounters())
  for (let index = 0; index < WINDOWS; index++) {
    await delay(windowsStart + (index + 1) * WINDOW_MS - performance.now())
    const timingsAfter = serverTimings(await scrape())
    serverTimingsAtWindow.push(serverTimingsBetween(timingsBefore, timingsAfter))
    timingsBefore = timingsAfter
    generatorLoopAtWindow.push({
      p99_ms: round1(generatorLoop.percentile(99) / 1e6),
      max_ms: round1(generatorLoop.max / 1e6),
    })
    generatorLoop.reset()
    const cpu = process.cpuUsage(cpuBefore)
    generatorCpuAtWindow.push(round1((cpu.user + cpu.system) / 10 / (performance.now() - cpuAt)))
    cpuBefore = process.cpuUsage()
    cpuAt = performance.now()
    loadAtWindow.push(loadAverage())
    reclaimAtBoundary.push(reclaimCounters())
    printWindow(index)
    const live = await fetch(`${base}/health/live`).catch(() => null)
    if (!live?.ok) {
      broken.push(`the server stopped answering /health/live in window ${index + 1}`)
      break
    }
  }
} finally {
  progress('load stops; waiting for the answers in flight')
  clearInterval(canaryTimer)
  await Promise.all(stops.map((stop) => stop()))
  agent.destroy()
  server.stop()
  controlPeer?.stop()
  rmSync(work, { recursive: true, force: true })
}

/** The items of `list` sent (or taken) within window `index` (from 0). */
function inWindow<T extends { at: number }>(index: number, list: T[]) {
  const from = windowsStart + index * WINDOW_MS
  return list.filter((item) => item.at >= from && item.at < from + WINDOW_MS)
}

/** Load shedding as the goal allows it: 503 with Retry-After. */
function isShed(sample: Sample) {
  return sample.status === 503 && sample.retryAfter
}

/** A route's answers that its p50 and p99 count: load shedding apart. */
function counted(list: Sample[]) {
  return list.filter((sample) => sample.status !== 0 && !isShed(sample))
}

function windowOf(index: number) {
  const from = windowsStart + index * WINDOW_MS
  const to = from + WINDOW_MS
  // A scrape's loop figures cover the time since the one before: the scrapes ending in
  // the window, the one that closes it (just after its end) included, the one that
  // closed the window before (just after its start) not.
  const windowScrapes = scrapes.filter((item) => item.at > from + 1000 && item.at <= to + 1000)
  const mean = (values: number[]) =>
    values.length ? round1(values.reduce((sum, value) => sum + value, 0) / values.length) : null
  const max = (values: number[]) => (values.length ? Math.max(...values) : null)
  const routes: Record<string, ReturnType<typeof routeFigures>> = {}
  const windowSamples = inWindow(index, samples)
  for (const route of REPORTED) {
    routes[route] = routeFigures(windowSamples.filter((sample) => sample.route === route))
  }
  return {
    window: index + 1,
    minutes: `${round1((index * WINDOW_MS) / 60_000)}-${round1(((index + 1) * WINDOW_MS) / 60_000)}`,
    rss_mib: {
      mean: mean(windowScrapes.map((item) => item.rssMiB)),
      max: max(windowScrapes.map((item) => item.rssMiB)),
    },
    heap_total_mib: mean(windowScrapes.map((item) => item.heapTotalMiB)),
    new_space_mib: mean(windowScrapes.map((item) => item.newSpaceMiB)),
    old_space_mib: mean(windowScrapes.map((item) => item.oldSpaceMiB)),
    external_mib: mean(windowScrapes.map((item) => item.externalMiB)),
    heap_used_mib: {
      mean: mean(windowScrapes.map((item) => item.heapUsedMiB)),
      max: max(windowScrapes.map((item) => item.heapUsedMiB)),
    },
    event_loop_ms: {
      p50: percentile(
        windowScrapes.map((item) => item.loopP50Ms),
        50
      ),
      p99_at_most: max(windowScrapes.map((item) => item.loopP99Ms)),
      max: max(windowScrapes.map((item) => item.loopMaxMs)),
    },
    scrapes: windowScrapes.length,
    /** This process's event-loop delay (resolution 10 ms included). */
    load_generator_loop_ms: generatorLoopAtWindow[index] ?? null,
    /** This process's CPU, % of one core. */
    load_generator_cpu_percent: generatorCpuAtWindow[index] ?? null,
    /** The server's, between the window's first and last scrapes. */
    server_cpu_percent: cpuShare(windowScrapes),
    /** The canary's time (median of the window's, ms): the machine's speed. */
    canary_ms: median3(inWindow(index, canary).map((sample) => sample.ms)),
    reclaim: reclaimIn(index),
    host: hostIn(index),
    routes,
    server_timings: serverTimingsAtWindow[index] ?? {},
    commands: inWindow(index, commands).map(({ command, seconds, ok, output }) => ({
      command,
      seconds,
      ok,
      output,
    })),
  }
}

/** The server's CPU between the first and the last of `scrapes`, % of one core. */
function cpuShare(scrapesOfWindow: Scrape[]) {
  const [first, last] = [scrapesOfWindow[0], scrapesOfWindow.at(-1)]
  if (!first || !last || last.at === first.at) return null
  return round1((100_000 * (last.cpuSeconds - first.cpuSeconds)) / (last.at - first.at))
}

/** The machine's major faults and file pages read back after eviction (MiB) in window `index`. */
function reclaimIn(index: number) {
  const before = reclaimAtBoundary[index]
  const after = reclaimAtBoundary[index + 1]
  if (!before || !after) return null
  return {
    major_faults: after.majorFaults - before.majorFaults,
    refaulted_file_mib: round1(
      ((after.refaultedFilePages - before.refaultedFilePages) * 4096) / 2 ** 20
    ),
  }
}

/**
 * The host's interference in window `index`: the steal time as a share of the cores' time
 * (all of it, and the worst second), and the CPU pressure as a share of the wall time.
 */
function hostIn(index: number) {
  const seconds = inWindow(index, hostSeconds)
  if (seconds.length === 0) return null
  const cores = availableParallelism()
  const share = (ms: number, of: number) => round1((100 * ms) / of)
  const wall = seconds.reduce((sum, second) => sum + second.ms, 0)
  const pressures = seconds.filter((second) => second.pressureMs !== null)
  return {
    steal_percent: share(
      seconds.reduce((sum, second) => sum + second.stealMs, 0),
      wall * cores
    ),
    steal_max_second_percent: Math.max(
      ...seconds.map((second) => share(second.stealMs, second.ms * cores))
    ),
    cpu_pressure_percent: pressures.length
      ? share(
          pressures.reduce((sum, second) => sum + second.pressureMs!, 0),
          pressures.reduce((sum, second) => sum + second.ms, 0)
        )
      : null,
    cpu_pressure_max_second_percent: pressures.length
      ? Math.max(...pressures.map((second) => share(second.pressureMs!, second.ms)))
      : null,
  }
}

/** Whether a request was in flight while an ace command (a separate process) ran. */
function duringCommand(sample: Sample) {
  return commands.some(
    (command) => sample.at < command.at && sample.at + sample.ms > command.startedAt
  )
}

/** The median to the microsecond (the canary takes under a millisecond). */
function median3(values: number[]) {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return +sorted[Math.floor(sorted.length / 2)].toFixed(3)
}

function routeFigures(list: Sample[]) {
  const answered = counted(list)
  const statuses: Record<string, number> = {}
  for (const sample of list) statuses[sample.status] = (statuses[sample.status] ?? 0) + 1
  const times = answered.map((sample) => sample.ms)
  // A diagnostic beside the goal's p99 (which counts every answer): how much of a
  // route's tail is the imports' and purges' processes sharing the two cores.
  const apart = answered.filter((sample) => !duringCommand(sample))
  return {
    n: list.length,
    p50_ms: percentile(times, 50),
    p99_ms: percentile(times, 99),
    during_commands: answered.length - apart.length,
    p99_apart_from_commands_ms: percentile(
      apart.map((sample) => sample.ms),
      99
    ),
    p99_during_commands_ms: percentile(
      answered.filter(duringCommand).map((sample) => sample.ms),
      99
    ),
    statuses,
    shed: list.filter(isShed).length,
    other_5xx: answered.filter((sample) => sample.status >= 500).length,
    unexpected: answered.filter((sample) => sample.status !== sample.expected).length,
    failed_connections: list.filter((sample) => sample.status === 0).length,
  }
}

function printWindow(index: number) {
  const figures = windowOf(index)
  const lines = [
    '',
    `Window ${figures.window} (minutes ${figures.minutes} after the warm-up), load average ${loadAtWindow[index]?.join(' / ')}: ` +
      `RSS ${cell(figures.rss_mib.mean)} MiB (max ${cell(figures.rss_mib.max)}), heap used ${cell(figures.heap_used_mib.mean)} MiB ` +
      `(max ${cell(figures.heap_used_mib.max)}) of a heap of ${cell(figures.heap_total_mib)} MiB (new space ${cell(figures.new_space_mib)}, old space ${cell(figures.old_space_mib)}), external ${cell(figures.external_mib)} MiB, event-loop delay p50 ${cell(figures.event_loop_ms.p50)} ms, p99 ≤ ${cell(figures.event_loop_ms.p99_at_most)} ms, ` +
      `max ${cell(figures.event_loop_ms.max)} ms (${figures.scrapes} scrapes); this load generator's own event-loop delay p99 ${cell(figures.load_generator_loop_ms?.p99_ms)} ms, max ${cell(figures.load_generator_loop_ms?.max_ms)} ms, its CPU ${cell(figures.load_generator_cpu_percent)} % of one core (the server's ${cell(figures.server_cpu_percent)} %); the machine's speed (SHA-256 of 1 MiB, median) ${cell(figures.canary_ms)} ms; ` +
      `the machine's reclaim: ${cell(figures.reclaim?.major_faults)} major faults, ${cell(figures.reclaim?.refaulted_file_mib)} MiB of file pages read back after eviction; ` +
      `the host's steal ${cell(figures.host?.steal_percent)} % of the cores' time (worst second ${cell(figures.host?.steal_max_second_percent)} %), CPU pressure ${cell(figures.host?.cpu_pressure_percent)} % of the time (worst second ${cell(figures.host?.cpu_pressure_max_second_percent)} %)`,
    `The server's own timing (its histogram), answers over 10 ms / over 25 ms of n: ${Object.entries(
      figures.server_timings
    )
      .map(([key, row]) => `${key} ${row.over_10_ms} / ${row.over_25_ms} of ${row.n}`)
      .join('; ')}`,
    '',
    '| route | n | p50 ms | p99 ms | during a command: n; their p99; p99 of the rest, ms | answers | shed (503 + Retry-After) | other 5xx | unexpected | failed connections |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...Object.entries(figures.routes).map(
      ([route, r]) =>
        `| ${route} | ${r.n} | ${cell(r.p50_ms)} | ${cell(r.p99_ms)} | ${r.during_commands}; ${cell(r.p99_during_commands_ms)}; ${cell(r.p99_apart_from_commands_ms)} | ${JSON.stringify(r.statuses)} | ${r.shed} | ${r.other_5xx} | ${r.unexpected} | ${r.failed_connections} |`
    ),
    ...figures.commands.map(
      (command) =>
        `- ${command.command}: ${command.ok ? 'ok' : 'FAILED'} in ${command.seconds} s: ${command.output}`
    ),
  ]
  console.log(lines.join('\n'))
}

// The last window against the first.
const windows = Array.from({ length: loadAtWindow.length }, (_, index) => windowOf(index))
const first = windows[0]
const last = windows.at(-1)!
const ratio = (late: number | null, early: number | null) =>
  late !== null && early ? +(late / early).toFixed(2) : null
const rssRatio = ratio(last?.rss_mib.mean ?? null, first?.rss_mib.mean ?? null)
const p99Ratios: Record<string, number | null> = {}
const p99ApartRatios: Record<string, number | null> = {}
// How far each ratio can be trusted: its 95 % bootstrap interval (bench/ratio_interval.ts).
const p99Intervals: Record<string, [number, number] | null> = {}
const countedTimes = (index: number, route: string) =>
  counted(inWindow(index, samples).filter((sample) => sample.route === route)).map(
    (sample) => sample.ms
  )
for (const route of Object.keys(first?.routes ?? {})) {
  p99Ratios[route] = ratio(last.routes[route]?.p99_ms ?? null, first.routes[route].p99_ms)
  p99Intervals[route] = percentileRatioInterval(
    countedTimes(windows.length - 1, route),
    countedTimes(0, route),
    99
  )
  p99ApartRatios[route] = ratio(
    last.routes[route]?.p99_apart_from_commands_ms ?? null,
    first.routes[route].p99_apart_from_commands_ms
  )
}
// The service's answers: the control's are not the service's.
const served = samples.filter((sample) => sample.route !== CONTROL)
const all = routeFigures(served.filter((sample) => sample.at >= windowsStart))
const warmUp = routeFigures(served.filter((sample) => sample.at < windowsStart))
for (const window of windows) {
  for (const [route, figures] of Object.entries(window.routes)) {
    if (figures.n === 0) broken.push(`${route} had no request in window ${window.window}`)
  }
}
const goals = {
  rss_last_over_first_at_most_1_1: rssRatio !== null && rssRatio <= 1.1,
  p99_last_over_first_at_most_1_2: Object.entries(p99Ratios).every(
    ([route, value]) => route === CONTROL || (value !== null && value <= 1.2)
  ),
  no_5xx_but_shedding: all.other_5xx + warmUp.other_5xx === 0,
}
const report = {
  date: startedAt.toISOString(),
  machine: machine(),
  load_average_start: loadAtStart,
  load_average_end: loadAverage(),
  config: {
    minutes: MINUTES,
    window_minutes: WINDOW_MINUTES,
    warm_up_seconds: WARM_UP_SECONDS,
    merchants: MERCHANTS,
    transactions_each: TRANSACTIONS,
    reads_per_second: READS_PER_SECOND,
    control_per_second: controlPeer ? CONTROL_PER_SECOND : 0,
    logins_per_minute: LOGINS_PER_MINUTE,
    load_generator_nice: generatorNice,
    arrivals: ARRIVALS,
    uploads_per_minute: UPLOADS_PER_MINUTE,
    tall_pngs_per_minute: TALL_PNGS_PER_MINUTE,
    import_transactions: IMPORT_TRANSACTIONS,
    import_every_minutes: IMPORT_EVERY_MINUTES,
    purge_every_minutes: PURGE_EVERY_MINUTES,
  },
  windows,
  last_over_first: {
    rss: rssRatio,
    p99: p99Ratios,
    p99_interval_95: p99Intervals,
    p99_apart_from_commands: p99ApartRatios,
  },
  totals: { windows: all, warm_up: warmUp, skipped_sends: skipped },
  commands: commands.map(({ command, seconds, ok }) => ({ command, seconds, ok })),
  goals,
  broken,
}
if (JSON_FILE) writeFileSync(JSON_FILE, JSON.stringify(report, null, 2))
console.log(
  [
    '',
    `${startedAt.toISOString().slice(0, 16)} UTC, ${machine()}; load average ${loadAtStart.join(' / ')} at the start, ${report.load_average_end.join(' / ')} at the end; ` +
      `${windows.length} windows of ${+WINDOW_MINUTES.toFixed(2)} min after ${WARM_UP_SECONDS} s of warm-up; ${MERCHANTS} merchants; ${ARRIVALS} arrivals; load generator at nice ${generatorNice}.`,
    '',
    `Last window (${last?.window}) against the first:`,
    `- RSS (mean of the window): ${cell(first?.rss_mib.mean)} → ${cell(last?.rss_mib.mean)} MiB, **${cell(rssRatio)}×** (goal ≤ 1.1×)`,
    ...Object.entries(p99Ratios).map(
      ([route, value]) =>
        `- ${route} p99: ${cell(first.routes[route].p99_ms)} → ${cell(last.routes[route]?.p99_ms)} ms, **${cell(value)}×** (${route === CONTROL ? 'not a goal: the host and the sampling alone' : 'goal ≤ 1.2×'}; 95 % interval ${p99Intervals[route]?.join('-') ?? '-'}×)`
    ),
    `- diagnostic, p99 of the answers not in flight during an import or a purge, last ÷ first: ${Object.entries(
      p99ApartRatios
    )
      .map(([route, value]) => `${route} ${cell(value)}×`)
      .join(', ')}`,
    `- 5xx other than shedding with Retry-After: **${all.other_5xx}** in the windows, ${warmUp.other_5xx} in the warm-up (goal 0); shed: ${all.shed}; unexpected answers: ${all.unexpected}; failed connections: ${all.failed_connections}; sends skipped (64 in flight): ${JSON.stringify(skipped)}`,
    `- commands: ${commands.filter((command) => command.ok).length} ok, ${commands.filter((command) => !command.ok).length} failed (${[...new Set(commands.map((command) => command.command))].join(', ')})`,
    `- goals: ${JSON.stringify(goals)}`,
    broken.length ? `- THE RUN BROKE: ${broken.join('; ')}` : '- the run did not break',
  ].join('\n')
)
const count = (name: string) =>
  commands.filter((command) => command.ok && command.command === name).length
expectFigures('soak', {
  'scrapes in the last window': last?.scrapes,
  'RSS of the last window': last?.rss_mib.mean,
  ...Object.fromEntries(
    Object.entries(last?.routes ?? {}).map(([route, figures]) => [`${route} n`, figures.n])
  ),
  'imports': count('collections:import'),
  'purges': count('history:purge'),
})
if (broken.length > 0) process.exitCode = 1
