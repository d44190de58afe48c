/*
| Operator commands in a process of their own, as an operator runs them: real argv,
| real signals, real exit codes. The child uses the tests' database and environment.
*/
import env from '#start/env'
import {
  exitOf,
  READY_MS,
  spawnCollecting,
  type CollectedProcess,
} from '#tests/helpers/server_process'

export interface AceProcess extends CollectedProcess {
  /** Resolves once `pattern` appears on standard error (rejects if the process ends first). */
  stderrMatches: (pattern: RegExp) => Promise<void>
}

/**
 * `stdin: 'pipe'` gives the test the command's standard input (child.stdin); `nice`
 * starts it at that CPU priority. An `extraEnv` value of undefined unsets the variable.
 */
export function startAce(
  argv: string[],
  extraEnv: NodeJS.ProcessEnv = {},
  options: { stdin?: 'ignore' | 'pipe'; nice?: number } = {}
): AceProcess {
  const started = spawnCollecting(['ace.js', ...argv], {
    env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: env.get('DATABASE_URL'), ...extraEnv },
    stdin: options.stdin,
    nice: options.nice,
  })
  const { child, stderr } = started
  return {
    ...started,
    stderrMatches: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(stderr())) return false
          child.stderr!.off('data', check)
          resolve()
          return true
        }
        if (check()) return
        child.stderr!.on('data', check)
        void exitOf(child).then(() => {
          if (!check()) reject(new Error(`exited without ${pattern} on stderr:\n${stderr()}`))
        })
      }),
  }
}

/** Runs a command to its end. */
export async function runAce(argv: string[], extraEnv?: NodeJS.ProcessEnv) {
  const started = startAce(argv, extraEnv)
  const { code, signal } = await started.exited()
  return { code, signal, stdout: started.stdout(), stderr: started.stderr() }
}

/** The one JSON object a command printed (the last line of standard output). */
export function printedJson(stdout: string): Record<string, any> {
  const lines = stdout.trim().split('\n')
  return JSON.parse(lines.at(-1)!)
}

/**
 * Waits until a backend of the test database waits for a lock on `table` (a command
 * held by the test's lock), polling with a generous bound: a child process boots first.
 */
export async function untilWaitingForLockOn(table: string, withinMs = READY_MS) {
  const { default: db } = await import('@adonisjs/lucid/services/db')
  const deadline = Date.now() + withinMs
  while (Date.now() < deadline) {
    const waiting = await db.rawQuery(
      `SELECT count(*)::int AS total FROM pg_locks
       WHERE NOT granted AND locktype = 'relation' AND relation = ?::regclass`,
      [table]
    )
    if (waiting.rows[0].total > 0) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no backend waited for a lock on ${table} within ${withinMs} ms`)
}
