/*
| Benchmark: the one-year daily chart (GET /api/v1/portal/collections/charts,
| interval=day, no brand filter) in several reporting zones, on the production build
| and on bench/peers/plain_server.ts, the peer of every route in bench/hot_paths.ts
| (node:http + pg, the same authentication and limit, one prepared statement over
| `transactions` with generate_series days in the zone, no rollups), on the
| collections dataset (bench/README.md › collections_dataset.ts).
|
| For each zone: both bodies checked equal (as_of aside) before anything is timed;
| single requests one at a time, ours and the peer's alternating (p50/p95: the latency
| a user sees); then autocannon rounds at 10 connections, alternating which server
| goes first (req/s, p50/p95).
|
| Usage: npm run build, then
|   DATABASE_URL=postgres://.../mp_rollup_bench node --import=@poppinss/ts-exec bench/chart_zones.ts \
|     [--merchant=ID] [--zones=Asia/Manila,Asia/Kolkata,Asia/Kathmandu,UTC] [--single=30] \
|     [--rounds=2] [--seconds=8] [--connections=10] [--port=3420]
| (migrates; the merchant defaults to the one with the most transactions).
| --smoke (CI, on a tiny dataset): two zones (Manila, Kathmandu), 3 single requests, one
| round of 1 s, and a check that every zone measured something on both servers.
*/
import { execFileSync } from 'node:child_process'
import { isDeepStrictEqual } from 'node:util'
import { bootApp } from './boot_app.js'
import { startProductionServer } from './production_server.js'
import {
  assertPortsFree,
  cannon,
  flag,
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

const ZONES = flag(
  'zones',
  sized('Asia/Manila,Asia/Kolkata,Asia/Kathmandu,UTC', 'Asia/Manila,Asia/Kathmandu')
).split(',')
const SINGLE = numberFlag('single', sized(30, 3))
const ROUNDS = numberFlag('rounds', sized(2, 1))
const SECONDS = numberFlag('seconds', sized(8, 1))
const CONNECTIONS = numberFlag('connections', 10)
const PORT = numberFlag('port', 3420)
const APP_KEY = process.env.APP_KEY ?? 'bench-app-key-0123456789abcdef0123456789'
process.env.APP_KEY = APP_KEY

const startedAt = new Date()
const loadAtStart = loadAverage()
execFileSync('node', ['ace', 'migration:run', '--force'], { stdio: 'ignore', env: process.env })
const { shutdown } = await bootApp()
const { default: db } = await import('@adonisjs/lucid/services/db')
const { default: Merchant } = await import('#models/merchant')
const { createPortalClient, createMerchantWithUser, issuePat } =
  await import('#tests/helpers/portal')
const { startOfLocalDate } = await import('#services/collections/reporting/calendar')
const { formatInstant } = await import('#support/zoned_instants')

const largest = await db
  .from('transactions')
  .select('merchant_id')
  .count('* as total')
  .groupBy('merchant_id')
  .orderBy('total', 'desc')
  .first()
const merchantId = numberFlag('merchant', 0) || Number(largest.merchant_id)
const merchant = await Merchant.findOrFail(merchantId)
// The generator leaves 1 % of amounts null, PAID ones included, and a PAID row without
// an amount makes the whole chart a 503 (portal-api.md): they become 0.00 (the
// triggers keep the rollups exact).
const filled = await db
  .from('transactions')
  .where({ merchant_id: merchantId, status: 'PAID' })
  .whereNull('amount')
  .update({ amount: '0.00' })
// What autovacuum does after a bulk load, before anything is timed: the visibility map
// lets both servers' scans be index-only (the peer's over transactions_reporting_idx).
for (const table of ['transactions', 'transaction_scope_totals', 'transaction_totals']) {
  await db.rawQuery(`VACUUM ANALYZE ${table}`)
}
const { user } = await createMerchantWithUser({ role: 'developer', merchant })
const bearer = `Bearer ${await issuePat(user, await createPortalClient(), { minutes: 240 })}`
// The year up to the last whole UTC day of the data, the same 365 local days in each zone.
const newestRow = await db
  .from('transactions')
  .where('merchant_id', merchantId)
  .max('created_at as at')
  .first()
const newest: Date = newestRow.at
const rowsInRange = await db
  .from('transactions')
  .where({ merchant_id: merchantId, environment: 'live', currency: 'PHP' })
  .count('* as total')
  .first()
const otherRows = await db
  .from('transactions')
  .whereNot('merchant_id', merchantId)
  .count('* as total')
  .first()
await shutdown()

function yearOf(zone: string) {
  const end = new Date(newest.getTime() - 86_400_000)
  const date = { year: end.getUTCFullYear(), month: end.getUTCMonth() + 1, day: end.getUTCDate() }
  const to = BigInt(startOfLocalDate(date, zone)) * 1000n
  const from = BigInt(startOfLocalDate({ ...date, year: date.year - 1 }, zone)) * 1000n
  return { from: formatInstant(from, zone), to: formatInstant(to, zone) }
}

await assertPortsFree(PORT, PORT + 1)
const ours = await startProductionServer({ port: PORT, appKey: APP_KEY })
process.on('exit', ours.stop)
const peer = await startPeer('bench/peers/plain_server.ts', PORT + 1, {
  RATE_LIMIT_MULTIPLIER: '100000',
})

type Server = 'ours' | 'peer'
const bases: Record<Server, string> = { ours: ours.base, peer: peer.base }
const headers = { authorization: bearer }
const pathOf = (zone: string) => {
  const { from, to } = yearOf(zone)
  const query = new URLSearchParams({
    environment: 'live',
    currency: 'PHP',
    interval: 'day',
    timezone: zone,
    from,
    to,
  })
  return `/api/v1/portal/collections/charts?${query}`
}

async function body(server: Server, zone: string) {
  const response = await fetch(`${bases[server]}${pathOf(zone)}`, { headers })
  const json = (await response.json()) as any
  if (response.status !== 200) throw new Error(`${server} ${zone}: ${response.status}`)
  delete json.data.as_of
  return json
}

interface Row {
  zone: string
  buckets: number
  single: Record<Server, number[]>
  rounds: Record<Server, CannonRound[]>
}
const rows: Row[] = []
for (const zone of ZONES) {
  const [ourBody, peerBody] = [await body('ours', zone), await body('peer', zone)]
  if (!isDeepStrictEqual(ourBody, peerBody)) {
    throw new Error(`${zone}: the bodies differ (ours and the peer's)`)
  }
  const row: Row = {
    zone,
    buckets: ourBody.data.buckets.length,
    single: { ours: [], peer: [] },
    rounds: { ours: [], peer: [] },
  }
  for (let index = 0; index < SINGLE; index++) {
    for (const server of index % 2 === 0
      ? (['ours', 'peer'] as const)
      : (['peer', 'ours'] as const)) {
      row.single[server].push(await timed(`${bases[server]}${pathOf(zone)}`, { headers }))
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of round % 2 === 0
      ? (['ours', 'peer'] as const)
      : (['peer', 'ours'] as const)) {
      row.rounds[server].push(
        await cannon({
          url: `${bases[server]}${pathOf(zone)}`,
          headers,
          connections: CONNECTIONS,
          duration: SECONDS,
        })
      )
    }
  }
  rows.push(row)
  console.error(`${zone} done, load ${loadAverage().join(' / ')}`)
}
ours.stop()
peer.stop()

const loadAtEnd = loadAverage()
console.log(
  `\n${startedAt.toISOString()}, ${machine()}; merchant ${merchantId}: ${rowsInRange.total} live PHP ` +
    `transactions (${otherRows.total} of other merchants; ${filled} null PAID amounts set to 0.00); ` +
    `${SINGLE} single requests each, ` +
    `${ROUNDS} × ${SECONDS} s rounds at ${CONNECTIONS} connections; load average ` +
    `${loadAtStart.join(' / ')} at the start, ${loadAtEnd.join(' / ')} at the end.\n`
)
console.log(
  '| zone | buckets | ours req/s | ours p50 / p95 ms | ours single p50 / p95 ms | peer req/s | peer p50 / p95 ms | peer single p50 / p95 ms | req/s ratio |'
)
console.log('|---|---|---|---|---|---|---|---|---|')
for (const row of rows) {
  const [mine, theirs] = [summary(row.rounds.ours), summary(row.rounds.peer)]
  console.log(
    `| ${row.zone} | ${row.buckets} | ${mine.requests_per_second} | ${mine.p50_ms} / ${mine.p95_ms} | ` +
      `${percentile(row.single.ours, 50)} / ${percentile(row.single.ours, 95)} | ` +
      `${theirs.requests_per_second} | ${theirs.p50_ms} / ${theirs.p95_ms} | ` +
      `${percentile(row.single.peer, 50)} / ${percentile(row.single.peer, 95)} | ` +
      `**${(mine.requests_per_second / theirs.requests_per_second).toFixed(1)}×** |`
  )
}
expectFigures(
  'chart_zones',
  Object.fromEntries(
    rows.flatMap((row) =>
      (['ours', 'peer'] as const).flatMap((server) => [
        [`${row.zone} ${server} req/s`, summary(row.rounds[server]).requests_per_second],
        [`${row.zone} ${server} single p50`, percentile(row.single[server], 50)],
      ])
    )
  )
)
process.exit(0)
