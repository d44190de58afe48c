/*
| Helpers of the foundation's tests: the error envelope's allowed keys, PAT parts,
| and in-process operator commands (env overrides: tests/helpers/env.ts).
*/
import { Writable } from 'node:stream'
import app from '@adonisjs/core/services/app'
import type { BaseCommand } from '@adonisjs/core/ace'

/** Keys an error body may carry (decisions.md §1): anything else is a leak. */
export const ERROR_ENVELOPE_KEYS = ['success', 'message', 'error_code', 'errors']

/** Runs an operator command in-process through the ace kernel; output kept in memory. */
export async function runCommand<Command extends typeof BaseCommand>(
  command: Command,
  argv: string[],
  prepare?: (instance: InstanceType<Command>) => void
) {
  const ace = await app.container.make('ace')
  ace.ui.switchMode('raw')
  const instance = (await ace.create(command, argv)) as InstanceType<Command>
  prepare?.(instance)
  await instance.exec()
  const logs = instance.logger.getLogs() as Array<{ message: string; stream: string }>
  const stdout = logs.filter((log) => log.stream === 'stdout').map((log) => log.message)
  const stderr = logs.filter((log) => log.stream === 'stderr').map((log) => log.message)
  return {
    exitCode: instance.exitCode,
    stdout,
    stderr,
    /** The single JSON object a successful operator command prints. */
    json: () => {
      if (stdout.length !== 1) throw new Error(`expected one stdout line, got ${stdout.length}`)
      return JSON.parse(stdout[0]) as Record<string, any>
    },
  }
}

/** A PAT's parts: `pat_<base64url id>.<secret>`. */
export function patParts(pat: string) {
  const match = /^pat_([^.]+)\.(.+)$/.exec(pat)
  if (!match) throw new Error('not a PAT')
  return { encodedId: match[1], secret: match[2] }
}

/** Encodes a token id the way the auth package does (base64url). */
export function encodeTokenId(id: string | number) {
  return Buffer.from(String(id)).toString('base64url')
}

/** Rows in a table (straight from PostgreSQL). */
export async function countRows(table: string) {
  const { default: db } = await import('@adonisjs/lucid/services/db')
  const row = await db.from(table).count('* as total').first()
  return Number(row?.total ?? 0)
}

/** A stream that says it is a terminal and keeps what is written to it (progress lines). */
export function terminalOutput() {
  const drawn: string[] = []
  const stream = Object.assign(
    new Writable({
      write: (chunk, _encoding, done) => {
        drawn.push(String(chunk))
        done()
      },
    }),
    { isTTY: true }
  ) as unknown as NodeJS.WriteStream
  return { stream, text: () => drawn.join('') }
}
