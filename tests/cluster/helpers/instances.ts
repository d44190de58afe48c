/*
| Production builds of the service, started as an operator would run them
| (`node build/bin/server.js`, NODE_ENV=production), several on one PostgreSQL
| database and one Redis. `npm run test:cluster` builds once before the suite.
|
| Ports: CLUSTER_PORT_BASE (HTTP) and CLUSTER_METRICS_PORT_BASE, when set, hand out
| consecutive ports from there (machines where port ranges are assigned); otherwise
| the operating system picks free ones.
*/
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import app from '@adonisjs/core/services/app'
import env from '#start/env'
import { PORTAL_ORIGIN } from '#tests/helpers/portal'
import { route } from '#tests/helpers/routes'
import { freePort } from '#tests/helpers/server_process'

export const BUILD_DIR = app.makePath('build')
/**
 * The suite's own APP_KEY for every instance: signed links, encrypted values and the
 * keyed client secrets the tests create (app/auth/high_entropy_secrets.ts) must travel.
 */
const clusterAppKey = () => env.get('APP_KEY')!

const counters = { http: 0, metrics: 0 }

export async function nextPort(kind: 'http' | 'metrics' = 'http') {
  const base = Number(
    kind === 'http' ? process.env.CLUSTER_PORT_BASE : process.env.CLUSTER_METRICS_PORT_BASE
  )
  if (Number.isInteger(base) && base > 0) return base + counters[kind]++
  return freePort()
}

export function requireBuild() {
  if (!existsSync(join(BUILD_DIR, 'bin', 'server.js'))) {
    throw new Error('No production build: run `npm run test:cluster` (it builds first)')
  }
}

/** The Redis the suite shares with its instances (required: the suite proves both stores). */
export function clusterRedisUrl() {
  const url = env.get('REDIS_URL')
  if (!url) throw new Error('The cluster suite needs REDIS_URL (one Redis for every instance)')
  return url
}

export function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

export async function statusOf(url: string, timeoutMs = 2_000): Promise<number | null> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    await response.arrayBuffer()
    return response.status
  } catch {
    return null
  }
}

export interface InstanceOptions {
  name: string
  store: 'redis' | 'database'
  databaseUrl?: string
  databaseReadUrl?: string
  outboxDir: string
  env?: Record<string, string>
  metrics?: boolean
}

/** One production server process. `start()` resolves once /health/ready is 200. */
export class Instance {
  child?: ChildProcess
  output = ''
  port = 0
  metricsPort?: number

  constructor(readonly options: InstanceOptions) {}

  get url() {
    return `http://127.0.0.1:${this.port}`
  }

  environment(): Record<string, string> {
    const { options } = this
    return {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      APP_KEY: clusterAppKey(),
      APP_URL: this.url,
      PORTAL_URL: PORTAL_ORIGIN,
      DATABASE_URL: options.databaseUrl ?? env.get('DATABASE_URL')!,
      ...(options.databaseReadUrl ? { DATABASE_READ_URL: options.databaseReadUrl } : {}),
      ...(options.store === 'redis' ? { REDIS_URL: clusterRedisUrl() } : {}),
      HOST: '127.0.0.1',
      PORT: String(this.port),
      ...(this.metricsPort ? { METRICS_PORT: String(this.metricsPort) } : {}),
      MAIL_MAILER: 'outbox',
      MAIL_OUTBOX_DIR: options.outboxDir,
      LOG_LEVEL: 'warn',
      ...options.env,
    }
  }

  async start() {
    requireBuild()
    if (!this.port) this.port = await nextPort('http')
    if (this.options.metrics && !this.metricsPort) this.metricsPort = await nextPort('metrics')
    this.output = ''
    const child = spawn(process.execPath, ['bin/server.js'], {
      cwd: BUILD_DIR,
      env: this.environment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.child = child
    child.stdout!.on('data', (chunk) => (this.output += chunk))
    child.stderr!.on('data', (chunk) => (this.output += chunk))
    // Bounded by time, generously: a busy machine starts a server many times slower.
    const giveUpAt = Date.now() + 120_000
    while (Date.now() < giveUpAt) {
      if (child.exitCode !== null) {
        throw new Error(`${this.options.name} exited early:\n${this.output}`)
      }
      if ((await statusOf(`${this.url}${route('health.ready')}`)) === 200) return this
      await sleep(100)
    }
    throw new Error(`${this.options.name} did not become ready:\n${this.output}`)
  }

  /** SIGTERM, then waits (bounded) for the exit; resolves with the exit code. */
  async stop(timeoutMs = 60_000): Promise<number | null> {
    const child = this.child
    if (!child || child.exitCode !== null || child.signalCode !== null)
      return child?.exitCode ?? null
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code))
    )
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    try {
      return await exited
    } finally {
      clearTimeout(timer)
    }
  }
}

/** Two instances on one database (and one Redis with the redis store). */
export class Pair {
  readonly a: Instance
  readonly b: Instance
  outboxDir = ''

  constructor(
    readonly store: 'redis' | 'database',
    readonly extraEnv: Record<string, string> = {},
    readonly metrics = false
  ) {
    this.a = new Instance({ name: `${store}-a`, store, outboxDir: '', env: extraEnv, metrics })
    this.b = new Instance({ name: `${store}-b`, store, outboxDir: '', env: extraEnv, metrics })
  }

  get instances() {
    return [this.a, this.b]
  }

  /** Instance a for even indexes, b for odd: "alternately to both". */
  at(index: number) {
    return index % 2 === 0 ? this.a : this.b
  }

  async start() {
    this.outboxDir = await mkdtemp(join(tmpdir(), 'cluster-outbox-'))
    for (const instance of this.instances) instance.options.outboxDir = this.outboxDir
    await Promise.all(this.instances.map((instance) => instance.start()))
    return this
  }

  async stop() {
    await Promise.all(this.instances.map((instance) => instance.stop()))
    if (this.outboxDir) await rm(this.outboxDir, { recursive: true, force: true })
  }

  /** Mails written by either instance to `to`, oldest first. */
  async mailsTo(to: string) {
    const entries = await readdir(this.outboxDir)
    const files = entries.filter((file) => file.endsWith('.json')).sort()
    const mails: Array<{ to: string; subject: string; text: string }> = []
    for (const file of files) {
      const mail = JSON.parse(await readFile(join(this.outboxDir, file), 'utf8'))
      if (String(mail.to).includes(to)) mails.push(mail)
    }
    return mails
  }

  /** Waits (bounded) for a mail to `to` matching `pattern`; returns the first capture. */
  async waitForMail(to: string, pattern: RegExp, count = 1) {
    const giveUpAt = Date.now() + 60_000
    while (Date.now() < giveUpAt) {
      const mails = await this.mailsTo(to)
      const found = mails
        .map((mail) => pattern.exec(mail.text))
        .filter((match): match is RegExpExecArray => match !== null)
      if (found.length >= count) return found[count - 1][1]
      await sleep(100)
    }
    throw new Error(`no mail to ${to} matching ${pattern}`)
  }
}

/** JSON request to an instance; answers status and parsed body. */
export async function call(
  instance: Instance,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; json?: unknown; redirect?: 'manual' } = {}
) {
  const response = await fetch(`${instance.url}${path}`, {
    method,
    redirect: options.redirect ?? 'follow',
    headers: {
      Accept: 'application/json',
      ...(options.json !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
  })
  const text = await response.text()
  let body: any = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = text
  }
  return { status: response.status, body, headers: response.headers }
}

export function countBy(values: Array<number | string>) {
  const counts: Record<string, number> = {}
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1
  return counts
}

/**
 * Empty tables (tests/helpers/database.ts) and the Redis database the instances keep
 * limits in: the suite's Redis database is emptied between tests (use one of its own).
 */
export async function resetCluster() {
  const { resetState } = await import('#tests/helpers/database')
  const { default: redis } = await import('@adonisjs/redis/services/main')
  await resetState()
  clusterRedisUrl()
  await redis.connection('main').flushdb()
}

/** Runs an ace command of the production build as a separate process (one "host"). */
export function aceOnHost(args: string[], extraEnv: Record<string, string> = {}) {
  requireBuild()
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['ace.js', ...args], {
      cwd: BUILD_DIR,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        APP_KEY: clusterAppKey(),
        DATABASE_URL: env.get('DATABASE_URL')!,
        LOG_LEVEL: 'warn',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}
