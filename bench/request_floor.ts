/*
| Benchmark (on demand, never in CI): what a single Portal read costs before its own
| statement, piece by piece. One request at a time, interleaved round by round so the
| host's noise hits every probe alike:
| - a bare `node:http` server in this process (the HTTP round trip through `fetch`);
| - `GET /health/live` of the production build (the framework, no database);
| - `GET /api/v1/portal/me` (the framework, the one-statement PAT check, the limiter);
| - the database round trips the PAT check and the limiter make, by themselves
|   (`select 1`, the limiter's upsert, the PAT statement), prepared, over `pg`.
|
|   npm run build
|   DATABASE_URL=postgres://.../any_migrated_db \
|     node --import=@poppinss/ts-exec bench/request_floor.ts [--rounds=400] [--port=3498] [--smoke]
|
| Prints p50/p90 per probe (ms) as one JSON object; bench/README.md keeps the figures.
*/
import http from 'node:http'
import pg from 'pg'
import { bootApp } from './boot_app.js'
import { startProductionServer } from './production_server.js'
import { expectFigures, sized } from './smoke.js'

function flag(name: string, fallback: string) {
  const prefix = `--${name}=`
  return (
    process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length) ?? fallback
  )
}

const ROUNDS = Number(flag('rounds', sized('400', '20')))
const WARM_UP_ROUNDS = sized(60, 5)
const PORT = Number(flag('port', '3498'))
const APP_KEY = process.env.APP_KEY ?? 'bench-app-key-0123456789abcdef0123456789'
process.env.APP_KEY = APP_KEY

const { shutdown } = await bootApp()
const { createPortalClient, createMerchantWithUser, issuePat } =
  await import('#tests/helpers/portal')
const portalClient = await createPortalClient()
const { user } = await createMerchantWithUser({ role: 'developer' })
const pat = await issuePat(user, portalClient, { minutes: 240 })

const bare = http.createServer((_request, response) => {
  response.setHeader('content-type', 'application/json')
  response.end('{"ok":true}')
})
await new Promise<void>((resolve) => bare.listen(PORT + 1, '127.0.0.1', () => resolve()))

const { base, stop } = await startProductionServer({ port: PORT, appKey: APP_KEY })
const database = new pg.Client({ connectionString: process.env.DATABASE_URL })
try {
  await database.connect()
  const tokenRow = await database.query(
    'SELECT max(id) AS id FROM auth_access_tokens WHERE tokenable_id = $1',
    [user.id]
  )
  const tokenId = String(tokenRow.rows[0].id)
  const authorization = { authorization: `Bearer ${pat}` }
  const text = (response: Promise<Response>) => response.then((received) => received.text())

  const probes: Record<string, () => Promise<unknown>> = {
    'bare node:http': () => text(fetch(`http://127.0.0.1:${PORT + 1}/`)),
    'GET /health/live': () => text(fetch(`${base}/health/live`)),
    'GET /portal/me': () => text(fetch(`${base}/api/v1/portal/me`, { headers: authorization })),
    'pg select 1': () => database.query({ name: 'floor-select-1', text: 'SELECT 1' }),
    'pg limiter upsert': () =>
      database.query({
        name: 'floor-limiter',
        text: `INSERT INTO rate_limits VALUES ($1, $2, $3)
               ON CONFLICT (key) DO UPDATE SET
                 points = CASE WHEN rate_limits.expire <= $4 THEN $2 ELSE rate_limits.points + $2 END,
                 expire = CASE WHEN rate_limits.expire <= $4 THEN $3 ELSE rate_limits.expire END
               RETURNING points, expire`,
        values: ['bench:floor', 1, Date.now() + 60_000, Date.now()],
      }),
    'pg PAT statement': () =>
      database.query({
        name: 'floor-pat',
        text: `SELECT t.*, u.*, m.*, coalesce(pc.is_active, false) AS application_active
                 FROM auth_access_tokens t
                 LEFT JOIN users u ON u.id = t.tokenable_id
                 LEFT JOIN merchants m ON m.id = u.merchant_id
                 LEFT JOIN portal_clients pc ON pc.id = t.portal_client_id
                WHERE t.id = $1 AND t.type = $2`,
        values: [tokenId, 'portal'],
      }),
  }
  const names = Object.keys(probes)
  const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]))
  for (let round = 0; round < WARM_UP_ROUNDS; round++)
    for (const name of names) await probes[name]()
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) {
      const started = process.hrtime.bigint()
      await probes[name]()
      times[name].push(Number(process.hrtime.bigint() - started) / 1e6)
    }
  }
  const quantile = (sorted: number[], q: number) =>
    +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(3)
  const figures = Object.fromEntries(
    names.map((name) => {
      const sorted = times[name].sort((a, b) => a - b)
      return [name, { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) }]
    })
  )
  console.log(JSON.stringify({ rounds: ROUNDS, ms: figures }, null, 2))
  expectFigures(
    'request_floor',
    Object.fromEntries(names.map((name) => [`${name} p50`, figures[name].p50]))
  )
} finally {
  stop()
  bare.close()
  await database.end().catch(() => {})
  await shutdown()
}
