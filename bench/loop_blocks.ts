/*
| Where the server's event loop was busy without a break (issue 38, goal 3: the soak's
| p99s move with the loop's longest blocks). Reads a V8 CPU profile of the server
| (`--cpu-prof`) and cuts it into blocks: runs of samples with no idle sample among
| them. While a block lasts, no timer fires, no socket is read and no answer is written,
| so a block's length is what it adds to every request waiting behind it. A block may
| hold several callbacks back to back (a turn of the loop that found many sockets ready):
| it is the loop's delay as monitorEventLoopDelay sees it, and its samples show what
| filled it.
|
|   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" node --import=@poppinss/ts-exec \
|     bench/soak.ts --minutes=12 --window-minutes=3
|   node --import=@poppinss/ts-exec bench/loop_blocks.ts /tmp/prof [--min-ms=30] [--top=15]
|
| Given a folder, it reads the largest profile of a main thread in it (the server's: the
| soak's other processes are not profiled); given a file, that file.
|
| Prints the blocks by length (how many, and their share of the profile's time), then for
| the blocks of --min-ms or more: the time by owner of the running function (a file of
| the app, a package, node's internals, the garbage collector, V8's own work), the
| functions of most self time, the app's functions in whose calls the time was spent
| (inclusive), and the longest blocks each with its three functions of most self time.
| A sample's time is the gap to the next one, so time the process waited for a core
| inside a block counts, as it does for the requests behind it.
| --app-root (/app/): the part of a file's path from which it is the app's (the build's
| `build/app/...` and the source's `app/...` both hold it).
| --smoke (CI): checks that the profile had idle and busy samples.
*/
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { flag, numberFlag } from './load_tools.js'
import { expectFigures } from './smoke.js'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

const file = process.argv.slice(2).find((argument) => !argument.startsWith('--'))
if (!file) {
  console.error(
    'usage: loop_blocks.ts PROFILE.cpuprofile|FOLDER [--min-ms=30] [--top=15] [--app-root=/app/] [--smoke]'
  )
  process.exit(1)
}

/** A folder's largest profile of a main thread (`CPU.<date>.<time>.<pid>.0.<n>.cpuprofile`). */
function mainThreadProfile(folder: string) {
  const found = readdirSync(folder)
    .filter((name) => /\.0\.\d+\.cpuprofile$/.test(name))
    .map((name) => join(folder, name))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0]
  if (!found) throw new Error(`no main thread's profile in ${folder}`)
  return found
}
const profileFile = statSync(file).isDirectory() ? mainThreadProfile(file) : file
const MIN_MS = numberFlag('min-ms', 30)
const TOP = numberFlag('top', 15)
const APP_ROOT = flag('app-root', '/app/')

const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as Profile
const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
const parents = new Map<number, number>()
for (const node of profile.nodes)
  for (const child of node.children ?? []) parents.set(child, node.id)

/** Where a function's code comes from: the app's file, a package, node, GC or V8. */
function owner(node: ProfileNode) {
  const { functionName, url } = node.callFrame
  if (!url) return functionName.startsWith('(') ? functionName : '(native)'
  if (url.startsWith('node:')) return url
  const modules = url.lastIndexOf('/node_modules/')
  if (modules >= 0) {
    const [scope, name] = url.slice(modules + '/node_modules/'.length).split('/')
    return scope.startsWith('@') ? `${scope}/${name}` : scope
  }
  const app = url.indexOf(APP_ROOT)
  return app >= 0 ? url.slice(app + 1) : url.replace(/^file:\/\//, '')
}
const label = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${owner(node)}:${node.callFrame.lineNumber + 1}`
const isApp = (node: ProfileNode) =>
  node.callFrame.url.includes(APP_ROOT) && !node.callFrame.url.includes('/node_modules/')

// Each sample's time: the gap to the next sample (the last one gets the profile's end).
const at: number[] = []
let clock = profile.startTime
for (const delta of profile.timeDeltas) at.push((clock += delta))
const weight = (index: number) =>
  ((index + 1 < at.length ? at[index + 1] : profile.endTime) - at[index]) / 1000

interface Block {
  start: number
  end: number
  ms: number
}
const idleIds = new Set(
  profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id)
)
const blocks: Block[] = []
let open: Block | null = null
let idleMs = 0
for (let index = 0; index < profile.samples.length; index++) {
  if (idleIds.has(profile.samples[index])) {
    idleMs += weight(index)
    if (open) blocks.push(open)
    open = null
    continue
  }
  open ??= { start: index, end: index, ms: 0 }
  open.end = index
  open.ms += weight(index)
}
if (open) blocks.push(open)

const totalMs = (profile.endTime - profile.startTime) / 1000
const percent = (ms: number) => `${((100 * ms) / totalMs).toFixed(2)} %`
const bands = [1, 5, 10, 20, 30, 50, 100, 200, Infinity]
console.log(
  `${profileFile}: ${(totalMs / 1000).toFixed(1)} s, ${profile.samples.length} samples, idle ${percent(idleMs)}`
)
console.log('\nblocks by length (ms): count, time, share of the profile')
for (let band = 0; band + 1 < bands.length; band++) {
  const inBand = blocks.filter((block) => block.ms >= bands[band] && block.ms < bands[band + 1])
  const ms = inBand.reduce((sum, block) => sum + block.ms, 0)
  console.log(
    `  ${bands[band]}-${bands[band + 1]}: ${inBand.length}, ${ms.toFixed(0)} ms, ${percent(ms)}`
  )
}

const long = blocks.filter((block) => block.ms >= MIN_MS).sort((a, b) => b.ms - a.ms)
const longMs = long.reduce((sum, block) => sum + block.ms, 0)

/** Self time by key over the samples of `of`, most first. */
function tally(of: Block[], keys: (sample: number) => Iterable<string>) {
  const totals = new Map<string, number>()
  for (const block of of) {
    for (let index = block.start; index <= block.end; index++) {
      for (const key of keys(profile.samples[index])) {
        totals.set(key, (totals.get(key) ?? 0) + weight(index))
      }
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1])
}
const print = (title: string, rows: Array<[string, number]>, base = longMs) => {
  console.log(`\n${title}`)
  for (const [key, ms] of rows.slice(0, TOP)) {
    console.log(
      `  ${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / base).toFixed(1).padStart(5)} %  ${key}`
    )
  }
}
/** The app's functions on a sample's stack, each once. */
function appFrames(sample: number) {
  const found = new Set<string>()
  for (let id: number | undefined = sample; id !== undefined; id = parents.get(id)) {
    const node = nodes.get(id)!
    if (isApp(node)) found.add(label(node))
  }
  return found
}

console.log(`\nblocks of ${MIN_MS} ms or more: ${long.length}, ${longMs.toFixed(0)} ms in all`)
if (long.length > 0) {
  print(
    'by owner (self time)',
    tally(long, (sample) => [owner(nodes.get(sample)!)])
  )
  print(
    'by function (self time)',
    tally(long, (sample) => [label(nodes.get(sample)!)])
  )
  print("in the app's calls (inclusive)", tally(long, appFrames))
  console.log('\nthe longest blocks: ms, seconds into the profile, functions of most self time')
  for (const block of long.slice(0, TOP)) {
    const top = tally([block], (sample) => [label(nodes.get(sample)!)]).slice(0, 3)
    const into = ((at[block.start] - profile.startTime) / 1e6).toFixed(1)
    console.log(
      `  ${block.ms.toFixed(0).padStart(5)} ms at ${into} s: ` +
        top.map(([key, ms]) => `${key} ${ms.toFixed(0)}`).join('; ')
    )
  }
}

expectFigures('loop_blocks', {
  samples: profile.samples.length,
  idle_ms: idleMs,
  blocks: blocks.length,
})
