/*
| Import benchmark (never in CI): rows per second of `importJsonLines` (what
| `node ace collections:import` runs) against a bare COPY of the same rows.
|
|   DATABASE_URL=postgres://.../mp_ops_bench \
|     node --import=@poppinss/ts-exec bench/collections_import.ts --transactions=100000 --events=300000
|
| or from the production build, as `node ace collections:import` runs in production
| (the preparation thread then starts without the TypeScript loader):
|
|   npm run build && cd build && DATABASE_URL=... node bench/collections_import.js ...
|
| Two fresh merchants get the same synthetic year (bench/collections_synthetic.ts):
| - bare COPY: the final rows of `transactions` and of the evidence (`evidence_records`,
|   `evidence_bodies`: app/services/collections/history/evidence_storage.ts) are prepared
|   beforehand (checked, snapshots sealed, their projections made and sealed, ids
|   reserved: bench/collections_dataset.ts › finalRows) into three files, untimed; the
|   timed part is only `COPY ... FROM STDIN` of those files into the final tables,
|   the stored projection column included;
| - import: the JSON Lines file through importJsonLines, timed end to end (read,
|   parse, check, seal, project, COPY straight in or through staging and merge, commit
|   per batch); `import_steps_ms` says where the batch writes spent their time.
| Rows = transactions + evidence rows. The database is migrated first; each side starts
| from empty `transactions` and evidence tables (every merchant's rows are
| deleted) and keeps what it loads until the other side starts: use a scratch database.
| `--sides=copy,import,copy` (the default) says which side runs when. Whichever runs
| second measured slower here even from empty tables (0.66-0.78 copy first, 0.83-0.92
| import first, one run each), so the import is bracketed by two copies and the ratio
| is of each side's mean. A second import in the same process reuses the warm
| preparation thread and measured up to 1 s faster at 50,000 lines: the default has
| one import, cold, as `node ace collections:import` runs it.
| --smoke (CI): 500 transactions and 1,500 events by default, and a check that both
| sides ran and the import wrote every line.
*/
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir, cpus, totalmem, loadavg } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { execFileSync } from 'node:child_process'
import type { CopyRow } from '#services/collections/import/copy_stream'
import { syntheticLines } from './collections_synthetic.js'
import { bootApp } from './boot_app.js'
import {
  appPieces,
  createBenchMerchant,
  BODY_COLUMNS,
  EVIDENCE_COLUMNS,
  flag,
  reserveTransactionIds,
  TRANSACTION_COLUMNS,
} from './collections_dataset.js'
import { expectFigures, sized } from './smoke.js'

const transactions = Number(flag('transactions', sized('100000', '500')))
const events = Number(flag('events', String(transactions * 3)))
const seed = Number(flag('seed', '7'))
// Lines per batch of the import; its default when not given.
const batchLines = flag('batch-lines', '') ? Number(flag('batch-lines', '')) : undefined
// Where the import prepares lines: `thread` (its default) or `here` (the import's thread).
const preparation = flag('prepare', 'thread') as 'thread' | 'here'
// The timed sides in the order they run: `copy` (bare COPY) and `import`.
const sides = flag('sides', 'copy,import,copy')!.split(',')
if (
  !sides.includes('copy') ||
  !sides.includes('import') ||
  sides.some((side) => side !== 'copy' && side !== 'import')
)
  throw new Error('--sides lists `copy` and `import`, each at least once')

/**
 * The name and CPU seconds (user + system) in a /proc `stat` file, or null when it
 * cannot be read. USER_HZ is 100 on Linux.
 */
async function cpuOfStat(file: string): Promise<{ name: string; seconds: number } | null> {
  const line = await readFile(file, 'utf8').catch(() => '')
  const end = line.lastIndexOf(')')
  if (end === -1) return null
  const fields = line.slice(end + 2).split(' ')
  return {
    name: line.slice(line.indexOf('(') + 1, end),
    seconds: (Number(fields[11]) + Number(fields[12])) / 100,
  }
}

/**
 * CPU seconds of every PostgreSQL process on this machine, from /proc: the backend
 * and the WAL writer, checkpointer and others. Null off Linux.
 */
async function postgresCpuSeconds(): Promise<number | null> {
  const pids = await readdir('/proc').catch(() => null)
  if (pids === null) return null
  let seconds = 0
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue
    const found = await cpuOfStat(`/proc/${pid}/stat`)
    if (found?.name.startsWith('postgres')) seconds += found.seconds
  }
  return seconds
}

/** CPU seconds of this process's threads by name, from /proc (empty off Linux). */
async function threadCpuSeconds(): Promise<Map<string, number>> {
  const byName = new Map<string, number>()
  const tasks = await readdir('/proc/self/task').catch(() => [] as string[])
  for (const task of tasks) {
    const thread = await cpuOfStat(`/proc/self/task/${task}/stat`)
    if (thread) byName.set(thread.name, (byName.get(thread.name) ?? 0) + thread.seconds)
  }
  return byName
}

/**
 * CPU seconds of this process (every thread, and by thread: MainThread is the
 * import's own, WorkerThread its preparation, V8Worker V8's helpers) and of
 * PostgreSQL while `work` ran. A thread that ended meanwhile is not counted by name.
 */
async function cpuOf<T>(work: () => Promise<T>) {
  const pgBefore = await postgresCpuSeconds()
  const threadsBefore = await threadCpuSeconds()
  const before = process.cpuUsage()
  const result = await work()
  const used = process.cpuUsage(before)
  const threadsAfter = await threadCpuSeconds()
  const pgAfter = await postgresCpuSeconds()
  const threads = Object.fromEntries(
    [...threadsAfter]
      .map(([name, seconds]) => [name, +(seconds - (threadsBefore.get(name) ?? 0)).toFixed(2)])
      .filter(([, seconds]) => Number(seconds) >= 0.05)
  )
  return {
    result,
    cpu: {
      bench_process: Number(((used.user + used.system) / 1e6).toFixed(2)),
      threads,
      postgres:
        pgBefore === null || pgAfter === null ? null : Number((pgAfter - pgBefore).toFixed(2)),
    },
  }
}

const startedAt = new Date()
const loadAtStart = loadavg()
execFileSync('node', ['ace', 'migration:run', '--force'], { stdio: 'ignore', env: process.env })
const { shutdown } = await bootApp()
const folder = await mkdtemp(join(tmpdir(), 'collections-import-bench-'))
try {
  const pieces = await appPieces()
  const { importJsonLines } = await import('#services/collections/import/import_transactions')
  const { from: copyFrom } = await import('pg-copy-streams')
  const { copyChunks } = await import('#services/collections/import/copy_stream')
  const knex: any = pieces.db.connection().getWriteClient()

  const write = async (file: string, rows: Iterable<CopyRow>) =>
    pipeline(Readable.from(copyChunks(rows)), createWriteStream(file))

  // Both inputs are written first, untimed: the bare COPY's final rows (prepared by
  // the app's own pieces) and the import's JSON Lines file, for two fresh merchants.
  const copyMerchant = await createBenchMerchant('Import Bench COPY')
  const importMerchant = await createBenchMerchant('Import Bench')
  const txFile = join(folder, 'transactions.copy')
  const evFile = join(folder, 'evidence.copy')
  const jsonl = join(folder, 'export.jsonl')
  const firstId = await (async () => {
    const client = await knex.client.acquireConnection()
    try {
      return await reserveTransactionIds(client, transactions)
    } finally {
      await knex.client.releaseConnection(client)
    }
  })()
  const copyLines = () =>
    syntheticLines({ merchantId: copyMerchant, transactions, events, seed, prefix: 'IMP' })
  await write(
    txFile,
    (function* () {
      let id = firstId
      for (const line of copyLines())
        yield pieces.finalRows({ ...line, events: [] }, id++).transaction
    })()
  )
  const bodyFile = join(folder, 'bodies.copy')
  const months = new Set<string>()
  const bodies: CopyRow[] = []
  await write(
    evFile,
    (function* () {
      let id = firstId
      for (const line of copyLines()) {
        const rows = pieces.finalRows(line, id++)
        for (const month of rows.months) months.add(month)
        bodies.push(...rows.bodies)
        yield* rows.events
      }
    })()
  )
  await write(bodyFile, bodies)
  bodies.length = 0
  await pieces.ensureBodyPartitions(months)
  await pipeline(
    Readable.from(
      (function* () {
        for (const line of syntheticLines({
          merchantId: importMerchant,
          transactions,
          events,
          seed,
          prefix: 'IMP',
        })) {
          yield JSON.stringify(line) + '\n'
        }
      })()
    ),
    createWriteStream(jsonl)
  )
  const { size: fileBytes } = await stat(jsonl)

  /**
   * Each timed side starts from the same state, untimed: the tables emptied (their
   * rollups follow by trigger) and the dirty pages written out by a CHECKPOINT. Run
   * one after the other into the same tables, the second side paid for the first's
   * pages and indexes: about 0.05 of the ratio against whichever ran second.
   */
  const startEmpty = async () => {
    await pieces.db.rawQuery('TRUNCATE evidence_records, evidence_bodies, transactions')
    // Unbounded: on a busy machine a checkpoint outlasts the service's statement timeout.
    await pieces.db.transaction(async (trx) => {
      await trx.rawQuery('SET LOCAL statement_timeout = 0')
      await trx.rawQuery('CHECKPOINT')
    })
  }

  /** Bare COPY: only `COPY ... FROM STDIN` of the prepared files, timed. */
  const bareCopy = async () => {
    await startEmpty()
    const client = await knex.client.acquireConnection()
    try {
      await client.query('SET statement_timeout = 0')
      const started = performance.now()
      const { cpu } = await cpuOf(async () => {
        await pipeline(
          createReadStream(txFile),
          client.query(copyFrom(`COPY transactions (${TRANSACTION_COLUMNS.join(', ')}) FROM STDIN`))
        )
        await pipeline(
          createReadStream(evFile),
          client.query(
            copyFrom(`COPY evidence_records (${EVIDENCE_COLUMNS.join(', ')}) FROM STDIN`)
          )
        )
        await pipeline(
          createReadStream(bodyFile),
          client.query(copyFrom(`COPY evidence_bodies (${BODY_COLUMNS.join(', ')}) FROM STDIN`))
        )
      })
      return { seconds: (performance.now() - started) / 1000, cpu }
    } finally {
      await client.query('SET statement_timeout = DEFAULT').catch(() => {})
      await knex.client.releaseConnection(client)
    }
  }

  /** Import: the JSON Lines file end to end, timed. */
  const timings: Record<string, number> = {}
  const fullImport = async () => {
    await startEmpty()
    const started = performance.now()
    const { result, cpu } = await cpuOf(() =>
      importJsonLines(createReadStream(jsonl, { highWaterMark: 1024 * 1024 }), {
        timings,
        batchLines,
        preparation,
      })
    )
    return { seconds: (performance.now() - started) / 1000, cpu, result }
  }

  const runs: { side: string; seconds: number; cpu: Awaited<ReturnType<typeof cpuOf>>['cpu'] }[] =
    []
  let result: Awaited<ReturnType<typeof fullImport>>['result'] | undefined
  for (const side of sides) {
    if (side === 'copy') {
      runs.push({ side, ...(await bareCopy()) })
    } else {
      const imported = await fullImport()
      result = imported.result
      runs.push({ side, seconds: imported.seconds, cpu: imported.cpu })
    }
  }
  const meanSeconds = (side: string) => {
    const times = runs.filter((run) => run.side === side).map((run) => run.seconds)
    return times.reduce((sum, seconds) => sum + seconds, 0) / times.length
  }
  const copySeconds = meanSeconds('copy')
  const importSeconds = meanSeconds('import')

  const rows = transactions + events
  const copyRate = rows / copySeconds
  const importRate = rows / importSeconds
  console.log(
    JSON.stringify({
      transactions,
      events,
      file_mib: Number((fileBytes / 1024 / 1024).toFixed(1)),
      imported: { transactions: result!.transactions, events: result!.events },
      copy_seconds: Number(copySeconds.toFixed(2)),
      import_seconds: Number(importSeconds.toFixed(2)),
      copy_rows_per_second: Math.round(copyRate),
      import_rows_per_second: Math.round(importRate),
      ratio: Number((importRate / copyRate).toFixed(2)),
      // Each side's runs in order: seconds, and the CPU seconds while it ran. On two
      // cores the import is CPU-bound, and these say where (this process: the
      // import's thread, its preparation thread, V8's helpers; PostgreSQL).
      runs: runs.map((run) => ({ ...run, seconds: Number(run.seconds.toFixed(2)) })),
      batch_lines: batchLines ?? 'default',
      preparation,
      // Wall time of each step of the import's batch writes (they overlap parsing).
      import_steps_ms: Object.fromEntries(
        Object.entries(timings).map(([step, ms]) => [step, Math.round(ms)])
      ),
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`,
      date: startedAt.toISOString(),
      load_average_start: loadAtStart.map((load) => +load.toFixed(2)),
      load_average_end: loadavg().map((load) => +load.toFixed(2)),
    })
  )
  expectFigures('collections_import', {
    'bare COPY rows/s': copyRate,
    'import rows/s': importRate,
    'transactions imported': result!.transactions === transactions ? transactions : 0,
    'events imported': result!.events === events ? events : 0,
  })
} finally {
  await rm(folder, { recursive: true, force: true })
  await shutdown()
}
