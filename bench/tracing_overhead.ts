/*
| Benchmark (on demand, never in CI): what tracing costs on `GET /api/v1/portal/me`
| (issue 22: "when tracing is off it costs nothing"). Production builds on one
| database, in alternating autocannon rounds (each server takes every place in turn),
| so load from elsewhere hits all alike; the ratios are the figures that count:
| - `before`: a build without tracing (BENCH_BEFORE_BUILD: the commit before it, built);
| - `off`: this build (BENCH_BUILD, default build/), no OTLP endpoint;
| - `on`: the same build exporting every span (all sampled) over OTLP/HTTP protobuf to
|   a receiver in this process that accepts and discards them;
| - `peer`: bench/peers/plain_server.ts, the hand-written node:http + pg peer of
|   hot_paths.ts (same checks, same body).
| The servers log at BENCH_LOG_LEVEL (default `info`, production's: the request line
| with its trace ids is written, to /dev/null). Besides req/s, each server's CPU time
| per request (/proc/<pid>/stat over its rounds, worker threads included) is printed:
| it moves much less than req/s when the machine is shared.
|
|   npm run build
|   git archive <commit before tracing> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/
|   (cd /tmp/before && node ace build)
|   DATABASE_URL=postgres://postgres@127.0.0.1:5432/scratch BENCH_BEFORE_BUILD=/tmp/before/build \
|     node --import=@poppinss/ts-exec bench/tracing_overhead.ts
| Knobs: BENCH_ROUNDS (8), BENCH_SECONDS (5), BENCH_CONNECTIONS (10), BENCH_PORT (3430:
| the servers on +0..+3), BENCH_OTLP_PORT (4331). BENCH_SMOKE=1 or --smoke (CI): one
| round of 1 s without a warm-up, without the `before` build unless it is given.
*/
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { resolve } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { isDeepStrictEqual } from 'node:util'
import { cannon, loadAverage, machine, summary, type CannonRound } from './load_tools.js'
import { expectFigures, sized } from './smoke.js'

const DATABASE_URL = process.env.DATABASE_URL
if (!DATABASE_URL) throw new Error('Set DATABASE_URL to a scratch database')
const ROOT = new URL('../', import.meta.url).pathname
const BUILD = resolve(ROOT, process.env.BENCH_BUILD ?? 'build')
const BEFORE_BUILD = process.env.BENCH_BEFORE_BUILD ? resolve(process.env.BENCH_BEFORE_BUILD) : null
for (const build of [BUILD, BEFORE_BUILD]) {
  if (build && !existsSync(`${build}/bin/server.js`)) throw new Error(`no build at ${build}`)
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(8, 1))
const SECONDS = Number(process.env.BENCH_SECONDS ?? sized(5, 1))
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const PORT = Number(process.env.BENCH_PORT ?? 3430)
const OTLP_PORT = Number(process.env.BENCH_OTLP_PORT ?? 4331)

const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  NODE_ENV: 'production',
  APP_KEY: process.env.APP_KEY ?? 'bench-app-key-0123456789abcdef0123456789',
  HOST: '127.0.0.1',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  // Every limit is enforced (one limiter write per request) but never refuses.
  RATE_LIMIT_MULTIPLIER: '100000',
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
}

const ace = (...args: string[]) =>
  execFileSync('node', ['ace', ...args], { env, encoding: 'utf8', cwd: BUILD })
ace('migration:run', '--force')
const demo = JSON.parse(ace('demo:seed').trim().split('\n').pop()!)

let exportRequests = 0
const receiver = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    exportRequests++
    response.writeHead(200, { 'Content-Type': 'application/x-protobuf' })
    response.end()
  })
})
await new Promise<void>((done) => receiver.listen(OTLP_PORT, '127.0.0.1', done))

const children: ChildProcess[] = []
process.on('exit', () => children.forEach((child) => child.kill('SIGTERM')))

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }))
/** CPU seconds `pid` has used (user + system), from /proc/<pid>/stat. */
function cpuSeconds(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
}

const pids: Record<string, number> = {}
async function start(
  name: string,
  args: string[],
  cwd: string,
  port: number,
  extra: Record<string, string> = {}
) {
  const child = spawn('node', args, {
    cwd,
    env: { ...env, PORT: String(port), PEER_PORT: String(port), ...extra },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  children.push(child)
  pids[name] = child.pid!
  const base = `http://127.0.0.1:${port}`
  for (let attempt = 0; ; attempt++) {
    if (attempt > 300 || child.exitCode !== null) throw new Error(`${name} did not start`)
    const live = await fetch(`${base}/health/live`).catch(() => null)
    if (live?.ok) return base
    await delay(100)
  }
}

const targets: Record<string, string> = {}
if (BEFORE_BUILD) targets.before = await start('before', ['bin/server.js'], BEFORE_BUILD, PORT)
targets.off = await start('off', ['bin/server.js'], BUILD, PORT + 1)
targets.on = await start('on', ['bin/server.js'], BUILD, PORT + 2, {
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${OTLP_PORT}`,
})
const peerArgs = ['--import=@poppinss/ts-exec', 'bench/peers/plain_server.ts']
targets.peer = await start('peer', peerArgs, ROOT, PORT + 3)

const login = await fetch(`${targets.off}/api/v1/auth/login`, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'x-service-application': 'merchant_portal',
    'authorization': `Basic ${Buffer.from(`${demo.portal_client.client_id}:${demo.portal_client.client_secret}`).toString('base64')}`,
  },
  body: JSON.stringify({
    username: demo.administrator.username,
    password: demo.administrator.password,
  }),
})
if (login.status !== 200) throw new Error(`login answered ${login.status}`)
const pat = ((await login.json()) as { data: { access_token: string } }).data.access_token
const headers = {
  authorization: `Bearer ${pat}`,
  // As the Portal backend sends it: every request continues a trace.
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
}

const bodies = await Promise.all(
  Object.values(targets).map((base) =>
    fetch(`${base}/api/v1/portal/me`, { headers }).then((response) => response.json())
  )
)
if (!bodies.every((body) => isDeepStrictEqual(body, bodies[0]))) {
  throw new Error(`bodies differ:\n${bodies.map((body) => JSON.stringify(body)).join('\n')}`)
}

const loadAtStart = loadAverage()
const names = Object.keys(targets)
const rounds: Record<string, CannonRound[]> = Object.fromEntries(names.map((name) => [name, []]))
const cpu: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]))
const options = (name: string) => ({
  url: `${targets[name]}/api/v1/portal/me`,
  headers,
  connections: CONNECTIONS,
})
// autocannon ends a run on a whole second, so a smoke run has no warm-up at all.
const WARM_UP_SECONDS = sized(3, 0)
if (WARM_UP_SECONDS > 0) {
  for (const name of names) await cannon({ ...options(name), duration: WARM_UP_SECONDS })
}
for (let index = 0; index < ROUNDS; index++) {
  // Each server takes every place in turn, and follows each of the others as often as
  // it precedes it (odd rounds reversed): what one leaves running (GC, log or span
  // writes) must not always land on the same neighbour.
  const rotated = names.map((_, offset) => names[(Math.floor(index / 2) + offset) % names.length]!)
  const order = index % 2 === 0 ? rotated : rotated.reverse()
  for (const name of order) {
    // A second for what the previous server left running (the traced one's exports).
    await delay(sized(1000, 200))
    const cpuBefore = cpuSeconds(pids[name]!)
    rounds[name]!.push(await cannon({ ...options(name), duration: SECONDS }))
    cpu[name]! += cpuSeconds(pids[name]!) - cpuBefore
  }
}

const figures = Object.fromEntries(names.map((name) => [name, summary(rounds[name]!)]))
const ratio = (a: string, b: string) =>
  figures[a] && figures[b]
    ? +(figures[a].requests_per_second / figures[b].requests_per_second).toFixed(3)
    : null
console.log(
  JSON.stringify(
    {
      machine: machine(),
      rounds: ROUNDS,
      seconds: SECONDS,
      connections: CONNECTIONS,
      log_level: env.LOG_LEVEL,
      load_average_at_start: loadAtStart,
      load_average_at_end: loadAverage(),
      figures,
      cpu_ms_per_request: Object.fromEntries(
        names.map((name) => {
          const requests = rounds[name]!.reduce((sum, round) => sum + round.requests, 0)
          return [name, +((cpu[name]! * 1000) / requests).toFixed(3)]
        })
      ),
      requests_per_second_by_round: Object.fromEntries(
        names.map((name) => [
          name,
          rounds[name]!.map((round) => Math.round(round.requests / round.seconds)),
        ])
      ),
      ratio_to_peer: Object.fromEntries(names.map((name) => [name, ratio(name, 'peer')])),
      off_over_before: ratio('off', 'before'),
      on_over_off: ratio('on', 'off'),
      otlp_export_requests: exportRequests,
    },
    null,
    2
  )
)
expectFigures('tracing_overhead', {
  ...Object.fromEntries(names.map((name) => [`${name} req/s`, figures[name].requests_per_second])),
  'on ÷ off': ratio('on', 'off'),
  'OTLP export requests': exportRequests,
})
// The servers first (the traced one flushes at SIGTERM), then the receiver.
await Promise.all(
  children.map((child) => {
    child.kill('SIGTERM')
    return new Promise((done) => child.once('exit', done))
  })
)
receiver.close()
process.exit(0)
