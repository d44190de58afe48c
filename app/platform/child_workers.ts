/*
| Forked Node processes for native work that must not share this process's threads,
| so that password hashing keeps its own capacity under any image load.
|
| The libuv thread pool is one per process (worker threads share it), and password
| hashing (scrypt), file and DNS work queue on it. libvips work (sharp) queued there
| too: 20 large logos took every thread for seconds, and logins waited behind them. In
| a child process, native work runs on the child's own pool and threads, at a lower CPU
| priority (nice 10, so that logins win the cores when they are contended), and a crash
| or an out-of-memory of the native code ends one child and fails its one request,
| never the server.
|
| Each child answers one request at a time; at most `size` children, started on first
| need. The caller bounds its concurrency to `size` (a WorkLane of the same size), so
| an idle child is always there. A child that exits, or is killed because it did not
| answer by the request's deadline, is replaced on the next request. Children never
| keep this process alive, and end at once when it ends, even killed with -9 (their
| IPC channel closes). A request whose caller has gone gets a grace to end; past it,
| its child is killed too: a child's restart costs less than a costly image for nobody.
*/
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { constants } from 'node:os'
import { fileURLToPath } from 'node:url'
import { siblingModule } from '#platform/sibling_module'
import { ClientLeft } from '#platform/client_left'
import { lowerEveryThread } from '#platform/thread_priority'

/** A child ended (crash, out of memory, killed) while answering a request. */
export class ChildWorkerExited extends Error {
  constructor(code: number | null, signal: string | null) {
    super(`worker process exited (code ${code}, signal ${signal})`)
    this.name = 'ChildWorkerExited'
  }
}

/** A child had not answered when its deadline passed: it was killed (and is replaced). */
export class ChildWorkerTimedOut extends Error {
  constructor(readonly timeoutMs: number) {
    super(`worker process gave no answer within ${timeoutMs} ms and was killed`)
    this.name = 'ChildWorkerTimedOut'
  }
}

/** The request's caller had gone and its grace passed: the child was killed (and is replaced). */
export class ChildWorkerAbandoned extends ClientLeft {
  constructor() {
    super('worker process killed: its caller has gone', 'its work in a child process')
    this.name = 'ChildWorkerAbandoned'
  }
}

/** How a call ends early: its deadline, and its caller's departure with a grace after it. */
export interface CallBounds {
  timeoutMs: number
  /** Aborts when the caller has gone. */
  signal?: AbortSignal
  /** How long the child may still answer once `signal` aborted (at most until the deadline). */
  graceMs?: number
}

type Reply<Response> = { ok: true; value: Response } | { ok: false; message: string }

export class ChildWorkers<Request, Response> {
  readonly #entry: string
  readonly #execArgv: string[]
  readonly #size: number
  readonly #idle: ChildProcess[] = []
  /** Children counted against `size`: a child given up on leaves it at once, before it exits. */
  readonly #alive = new Set<ChildProcess>()

  /**
   * `entry` names the child's module beside `from` (pass `import.meta.url`), without
   * extension: the child runs the same kind of file as the caller (TypeScript under
   * the development loader, JavaScript in the build).
   */
  constructor(from: string, entry: string, size: number) {
    const { url, execArgv } = siblingModule(from, entry)
    this.#entry = fileURLToPath(url)
    this.#execArgv = execArgv
    this.#size = size
  }

  /** Children alive now (idle or answering). */
  get started() {
    return this.#alive.size
  }

  /**
   * Sends `request` to an idle child and returns its answer. Past `timeoutMs` the child
   * is killed, whatever it is doing (a stopped or hung child included), and the call
   * fails with ChildWorkerTimedOut once it has exited, so its place is free for a new
   * child by then. Once `signal` aborts, the child has `graceMs` more (0 by default) to
   * answer before it is killed so, and the call fails with ChildWorkerAbandoned.
   */
  async call(request: Request, bounds: CallBounds): Promise<Response> {
    const { timeoutMs, signal, graceMs = 0 } = bounds
    if (signal?.aborted) throw new ChildWorkerAbandoned()
    const child = this.#idle.pop() ?? this.#spawn()
    child.channel?.ref()
    let killedFor: ChildWorkerTimedOut | ChildWorkerAbandoned | undefined
    const killFor = (reason: ChildWorkerTimedOut | ChildWorkerAbandoned) => {
      killedFor ??= reason
      child.kill('SIGKILL')
    }
    const startedAt = performance.now()
    let deadline = setTimeout(() => killFor(new ChildWorkerTimedOut(timeoutMs)), timeoutMs)
    const onAbort = () => {
      const left = timeoutMs - (performance.now() - startedAt)
      if (graceMs >= left) return
      clearTimeout(deadline)
      deadline = setTimeout(() => killFor(new ChildWorkerAbandoned()), graceMs)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const reply = await new Promise<Reply<Response>>((resolve, reject) => {
        const onMessage = (message: Reply<Response>) => settle(() => resolve(message))
        const onExit = (code: number | null, exitSignal: string | null) =>
          settle(() => reject(killedFor ?? new ChildWorkerExited(code, exitSignal)))
        const onError = (error: Error) => settle(() => reject(error))
        const settle = (finish: () => void) => {
          child.off('message', onMessage).off('exit', onExit).off('error', onError)
          finish()
        }
        child.on('message', onMessage).on('exit', onExit).on('error', onError)
        child.send(request as object)
      })
      if (!reply.ok) throw new Error(reply.message)
      return reply.value
    } finally {
      clearTimeout(deadline)
      signal?.removeEventListener('abort', onAbort)
      if (child.connected && !killedFor) {
        child.channel?.unref()
        this.#idle.push(child)
      } else {
        this.#alive.delete(child)
        child.kill('SIGKILL')
      }
    }
  }

  /** Ends the idle children (a busy one ends when this process does). */
  close() {
    for (const child of this.#idle.splice(0)) child.kill()
  }

  #spawn(): ChildProcess {
    if (this.#alive.size >= this.#size) throw new Error('no idle worker: bound the callers')
    const child = fork(this.#entry, [], {
      serialization: 'advanced',
      execArgv: this.#execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.#alive.add(child)
    child.once('exit', () => {
      this.#alive.delete(child)
      const index = this.#idle.indexOf(child)
      if (index >= 0) this.#idle.splice(index, 1)
    })
    child.on('error', () => {})
    child.unref()
    return child
  }
}

/** In the child: answers each request of the parent with `handler`, one at a time. */
export function answerRequests<Request, Response>(
  handler: (request: Request) => Promise<Response>
) {
  process.on('message', (request: Request) => {
    handler(request).then(
      (value) => process.send!({ ok: true, value } satisfies Reply<Response>),
      (error) =>
        process.send!({ ok: false, message: String(error?.message) } satisfies Reply<Response>)
    )
  })
  // The server is gone (ended, or killed with -9): end now. process.exit would first
  // wait for the native work in progress (seconds of an image), whose answer nobody
  // will read; SIGKILL does not.
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'))
}

/**
 * In the child: a lower CPU priority for every thread (nice 10, thread_priority.ts).
 * Where util-linux's `chrt` is installed, the threads also move to SCHED_IDLE: they
 * then run only on a core nothing else wants (a nice level still took a share of a
 * contended core from the server's thread); any process may lower its own policy so.
 */
export function lowerPriority() {
  try {
    execFileSync('chrt', ['--idle', '--all-tasks', '--pid', '0', String(process.pid)], {
      stdio: 'ignore',
    })
  } catch {
    // No chrt, or not Linux: the nice level below is what there is.
  }
  lowerEveryThread(constants.priority.PRIORITY_BELOW_NORMAL)
}
