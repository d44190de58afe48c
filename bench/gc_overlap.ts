/*
| Which of merchant B's slowest requests met one of the server's garbage collections
| (bench/README.md › noisy_neighbour). Reads a `noisy_neighbour.ts --samples=FILE`
| file and the bench's output of the same run with `BENCH_NODE_ARGS=--trace-gc` (the
| server's collections, timed from the server's start).
|
|   BENCH_NODE_ARGS=--trace-gc node --import=@poppinss/ts-exec bench/noisy_neighbour.ts \
|     --samples=/tmp/samples.json > /tmp/noisy.log
|   node --import=@poppinss/ts-exec bench/gc_overlap.ts /tmp/samples.json /tmp/noisy.log
|
| The samples are timed from the bench's start, the collections from the server's,
| which starts once the data is ready (9-10 s in): the offset between the two clocks
| is the one in --from..--to (8000..12000 ms) under which most of the slowest requests
| met a collection; check it against that start. A collection "met" a request when it
| ended while the request was in flight. Only collections of --min-ms (5) or more
| count, as a pause or as a marking step on the main thread.
| --smoke (CI, on the files of noisy_neighbour.ts's smoke run): also checks that the
| trace had collections and every phase had B requests.
*/
import { readFileSync } from 'node:fs'
import { expectFigures } from './smoke.js'

const [samplesFile, logFile] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const flag = (name: string, fallback: number) => {
  const found = process.argv.find((arg) => arg.startsWith(`--${name}=`))
  return found ? Number(found.split('=')[1]) : fallback
}
if (!samplesFile || !logFile) {
  console.error(
    'usage: gc_overlap.ts SAMPLES_FILE BENCH_OUTPUT [--min-ms=5] [--from=8000 --to=12000] [--smoke]'
  )
  process.exit(1)
}
const MIN_MS = flag('min-ms', 5)

interface Sample {
  at: number
  ms: number
}
const run = JSON.parse(readFileSync(samplesFile, 'utf8')) as {
  phases: Record<string, { from: number; to: number }>
  samples: { bMe: Sample[] }
}

// "[pid:0x…]   146209 ms: Mark-Compact 58.9 (111.2) -> 38.2 (111.2) MB, pooled: 0 MB,
// 6.01 / 0.61 ms  (+ 26.7 ms in 468 steps …, biggest step 0.3 ms, …"
const TRACE_LINE =
  /\s(\d+) ms: (\S+)(?: \(\w+\))? .*?MB, pooled: \S+ MB, ([\d.]+) \/ [\d.]+ ms(?:.*?biggest step ([\d.]+) ms)?/
const collections = readFileSync(logFile, 'utf8')
  .split('\n')
  .flatMap((line) => {
    const match = TRACE_LINE.exec(line)
    if (!match) return []
    const [, at, kind, pause, step] = match
    return [{ at: Number(at), kind, longest: Math.max(Number(pause), Number(step ?? 0)) }]
  })
const long = collections.filter((collection) => collection.longest >= MIN_MS)

const met = (requests: Sample[], offset: number) =>
  requests.filter((request) =>
    long.some(
      (collection) =>
        collection.at + offset >= request.at &&
        collection.at + offset <= request.at + request.ms + 1
    )
  ).length

const requestsPerPhase: Record<string, number> = {}
for (const [name, phase] of Object.entries(run.phases)) {
  const requests = run.samples.bMe
    .filter((sample) => sample.at >= phase.from && sample.at < phase.to)
    .sort((a, b) => b.ms - a.ms)
  requestsPerPhase[`B requests, ${name}`] = requests.length
  const slowest = requests.slice(0, Math.max(1, Math.floor(requests.length / 50)))
  let offset = flag('from', 8000)
  let most = met(slowest, offset)
  for (let candidate = offset + 10; candidate <= flag('to', 12000); candidate += 10) {
    const count = met(slowest, candidate)
    if (count > most) [offset, most] = [candidate, count]
  }
  const inPhase = collections.filter(
    (collection) => collection.at + offset >= phase.from && collection.at + offset < phase.to
  )
  const fullCollections = inPhase.filter((collection) => collection.kind.startsWith('Mark')).length
  console.log(
    JSON.stringify({
      phase: name,
      offset_ms: offset,
      slowest_met: `${most} of ${slowest.length}`,
      all_met: `${met(requests, offset)} of ${requests.length}`,
      collections: inPhase.length,
      full_collections: fullCollections,
      at_least_min_ms: inPhase.filter((collection) => collection.longest >= MIN_MS).length,
      longest_ms: Math.max(0, ...inPhase.map((collection) => collection.longest)),
    })
  )
}
expectFigures('gc_overlap', { 'collections traced': collections.length, ...requestsPerPhase })
