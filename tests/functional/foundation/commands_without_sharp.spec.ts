/*
| Commands that handle no image never load sharp (issue 37 › 1): its native binaries
| are optional dependencies, and a production install without them must still run
| every operator command. Each command runs in its own process, as an operator runs
| it, with a module hook that makes loading sharp fail.
*/
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import env from '#start/env'
import { resetState } from '#tests/helpers/database'
import { exitOf, within } from '#tests/helpers/server_process'
import { jsonLinesOf, transactionLine } from '#tests/helpers/collections_import'

/** Loaded before the command: resolving sharp (or its binaries) throws. */
const WITHOUT_SHARP = `data:text/javascript,${encodeURIComponent(
  `import { registerHooks } from 'node:module'
  registerHooks({
    resolve(specifier, context, next) {
      if (specifier === 'sharp' || specifier.startsWith('@img/sharp')) {
        throw new Error('Could not load the "sharp" module (blocked by the test)')
      }
      return next(specifier, context)
    },
  })`
)}`

/** `node ace <args>` without sharp; resolves with its output once it exits (bounded). */
async function aceWithoutSharp(args: string[], input = '') {
  const child = spawn(process.execPath, [`--import=${WITHOUT_SHARP}`, 'ace.js', ...args], {
    cwd: app.makePath(),
    env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: env.get('DATABASE_URL') },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  child.stdin.end(input)
  try {
    const { code } = await within(exitOf(child), 90_000, `ace ${args.join(' ')} to exit`)
    return { code, stdout, stderr }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
  }
}

test.group('Commands without sharp', (group) => {
  group.each.setup(() => resetState())

  test('every operator command that handles no image runs without sharp', async ({ assert }) => {
    const succeeds = async (args: string[], input?: string) => {
      const { code, stdout, stderr } = await aceWithoutSharp(args, input)
      assert.notInclude(stdout + stderr, 'sharp', `ace ${args[0]} loaded sharp`)
      assert.equal(code, 0, `ace ${args.join(' ')} failed:\n${stdout}${stderr}`)
      return stdout
    }
    const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!)

    assert.include(await succeeds(['list']), 'merchant:create')
    const merchant = lastJson(
      await succeeds([
        'merchant:create',
        '--name=Acme',
        '--email=ops@acme.example',
        '--currency=PHP',
      ])
    )
    assert.isNumber(merchant.id)
    assert.properties(
      lastJson(
        await succeeds(['portal-client:create', '--name=Portal', '--origin=https://portal.example'])
      ),
      ['client_id', 'client_secret']
    )
    assert.properties(
      lastJson(
        await succeeds(
          [
            'user:create',
            `--merchant=${merchant.id}`,
            '--email=admin@acme.example',
            '--first-name=Ada',
            '--last-name=Admin',
            '--role=administrator',
          ],
          'Correct-Horse-Battery-9\n'
        )
      ),
      ['id', 'reference_id']
    )
    assert.properties(lastJson(await succeeds(['auth:prune'])), ['deleted'])
    assert.isTrue(lastJson(await succeeds(['history:purge', '--dry-run'])).dry_run)
    assert.isTrue(lastJson(await succeeds(['history:reproject', '--dry-run'])).dry_run)

    const folder = await mkdtemp(join(tmpdir(), 'import-without-sharp-'))
    try {
      const file = join(folder, 'transactions.jsonl')
      await writeFile(file, jsonLinesOf([transactionLine(merchant.id)]) + '\n')
      const imported = lastJson(await succeeds(['collections:import', file]))
      assert.equal(imported.transactions_created, 1)
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  }).timeout(600_000)
})
