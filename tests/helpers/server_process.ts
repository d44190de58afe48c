/*
| Child processes for tests of what only a whole process shows. The real server,
| started as in production (NODE_ENV=production, bin/server.ts): shutdown, startup
| refusals, infrastructure outages. Any node process run for what it prints and how it
| exits (spawnCollecting, runToExit): ace commands, built entry points. Every wait is a
| wait for something to happen, bounded generously: a busy 2-core machine starts a
| server or runs a command many times slower than an idle one, and a wait that would
| never end still fails, later.
*/
import { spawn, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import { randomBytes } from 'node:crypto'
import app from '@adonisjs/core/services/app'
import env from '#start/env'
import { route } from '#tests/helpers/routes'

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** Resolves with `promise`, or rejects after `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** How long a process may take to start and answer, a command to run, a service to recover. */
export const READY_MS = 120_000
/** How long a process told to stop may take to exit. */
export const EXIT_MS = 60_000
/** How long one request to a running child process may take. */
export const REQUEST_MS = 30_000

/** Polls `probe` until it returns true, `every` ms apart; fails once `within` ms have passed. */
export async function eventually(
  probe: () => Promise<boolean>,
  what: string,
  { within: bound = READY_MS, every = 250 } = {}
) {
  const giveUpAt = performance.now() + bound
  while (!(await probe())) {
    if (performance.now() > giveUpAt) throw new Error(`never happened within ${bound} ms: ${what}`)
    await pause(every)
  }
}

export function exitOf(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode as string | null })
  }
  return new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal: signal ?? null }))
  )
}

export interface ExitStatus {
  code: number | null
  signal: NodeJS.Signals | null
}

/** A child process whose standard output and error are collected as they arrive. */
export interface CollectedProcess {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** Both streams, interleaved in the order they arrived. */
  output: () => string
  /** The exit status once the process has ended; past `withinMs` it is killed and this rejects. */
  exited: (withinMs?: number) => Promise<ExitStatus>
  /** SIGKILL if still running. */
  kill: () => void
}

export interface SpawnOptions {
  /** The child's whole environment (not added to this process's); undefined: unset. */
  env: Record<string, string | undefined>
  /** The checkout unless told. */
  cwd?: string
  /** `pipe` gives the test the child's standard input (child.stdin). */
  stdin?: 'ignore' | 'pipe'
  /** Starts the child through `nice -n <nice>`: at that CPU priority. */
  nice?: number
}

/** Starts `node <argv>` and collects what it prints. */
export function spawnCollecting(argv: string[], options: SpawnOptions): CollectedProcess {
  const command =
    options.nice === undefined
      ? [process.execPath, ...argv]
      : ['nice', '-n', String(options.nice), process.execPath, ...argv]
  const child = spawn(command[0], command.slice(1), {
    cwd: options.cwd ?? app.makePath(),
    env: Object.fromEntries(Object.entries(options.env).filter(([, value]) => value !== undefined)),
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let output = ''
  child.stdout!.on('data', (chunk) => {
    stdout += chunk
    output += chunk
  })
  child.stderr!.on('data', (chunk) => {
    stderr += chunk
    output += chunk
  })
  // Listened to from the start, so an exit before anyone asks is not missed.
  const exit = new Promise<ExitStatus>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal }))
  )
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    output: () => output,
    exited: async (withinMs = READY_MS) => {
      try {
        return await within(exit, withinMs, `${argv.join(' ')} to exit`)
      } catch (error) {
        kill()
        throw new Error(`${(error as Error).message}; its output:\n${output}`)
      }
    },
    kill,
  }
}

/** Runs `node <argv>` to its end (killed past `withinMs`): its exit status and output. */
export async function runToExit(argv: string[], options: SpawnOptions & { withinMs?: number }) {
  const started = spawnCollecting(argv, options)
  const status = await started.exited(options.withinMs)
  return { ...status, stdout: started.stdout(), stderr: started.stderr(), output: started.output() }
}

export interface ServerProcess {
  child: ChildProcess
  port: number
  base: string
  output: () => string
  /** SIGKILL if still running. */
  kill: () => void
}

/** Starts bin/server.ts in production mode on a free port, against the test database. */
export async function startProductionServer(
  extraEnv: Record<string, string> = {}
): Promise<ServerProcess> {
  const port = await freePort()
  const { child, output, kill } = spawnCollecting(['--import=@poppinss/ts-exec', 'bin/server.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      APP_KEY: randomBytes(32).toString('base64url'),
      DATABASE_URL: env.get('DATABASE_URL'),
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'silent',
      MAIL_MAILER: 'outbox',
      ...extraEnv,
    },
  })
  const server: ServerProcess = { child, port, base: `http://127.0.0.1:${port}`, output, kill }
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`server exited early:\n${output()}`)
        const response = await fetch(`${server.base}${route('health.live')}`, {
          signal: AbortSignal.timeout(REQUEST_MS),
        }).catch(() => null)
        return response?.status === 200
      },
      'server live',
      { every: 150 }
    )
  } catch (error) {
    server.kill()
    throw error
  }
  return server
}
