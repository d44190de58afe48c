/*
| Real infrastructure outages for tests: a redis-server of the test's own (the
| limiter store with REDIS_URL), and the test database refusing connections.
*/
import { spawn } from 'node:child_process'
import pg from 'pg'
import env from '#start/env'
import { accepts, eventually, EXIT_MS, exitOf, within } from '#tests/helpers/server_process'

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server'

/** The first port of 6390-6399 nothing listens on (REDIS_OUTAGE_PORT overrides). */
async function freeRedisPort() {
  if (process.env.REDIS_OUTAGE_PORT) return Number(process.env.REDIS_OUTAGE_PORT)
  for (let port = 6390; port <= 6399; port++) if (!(await accepts(port))) return port
  throw new Error('no free port in 6390-6399 for the test redis-server')
}

/**
 * Starts a redis-server without persistence, on `port` (a Redis outage ends by
 * starting one again on the port of the stopped one) or a free one; `stop()` ends it
 * (SIGTERM, waited for) and may be called more than once.
 */
export async function startRedisServer(port?: number) {
  const listenOn = port ?? (await freeRedisPort())
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(listenOn), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' }
  )
  await eventually(() => accepts(listenOn), `redis-server on ${listenOn}`, { every: 100 })
  return {
    port: listenOn,
    url: `redis://127.0.0.1:${listenOn}/0`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = exitOf(child)
      child.kill('SIGTERM')
      await within(exited, EXIT_MS, 'redis-server exit')
    },
  }
}

/**
 * Runs `work` while the test database refuses new connections and has none left
 * open (ALTER DATABASE ... ALLOW_CONNECTIONS false, then its sessions terminated);
 * connections are allowed again afterwards, whatever happens.
 */
export async function whileDatabaseUnreachable<T>(work: () => Promise<T>): Promise<T> {
  const url = new URL(env.get('DATABASE_URL')!)
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''))
  url.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: url.toString() })
  await admin.connect()
  const quoted = `"${database.replaceAll('"', '""')}"`
  try {
    await admin.query(`ALTER DATABASE ${quoted} WITH ALLOW_CONNECTIONS false`)
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database]
    )
    return await work()
  } finally {
    await admin.query(`ALTER DATABASE ${quoted} WITH ALLOW_CONNECTIONS true`)
    await admin.end()
  }
}
