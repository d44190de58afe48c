/*
| `node ace collections:import --help` (issue 22 › 8, issue 37 › 8) points to the import
| format documented in the repository (docs/import-format.md), not to a file outside
| it, and to the operations docs. Run as an operator runs it, in its own process.
*/
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'

function aceHelp(command: string) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['ace.js', command, '--help'], {
      cwd: app.makePath(),
      env: { ...process.env, NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`ace ${command} --help did not exit within 120 s:\n${output}`))
    }, 120_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

test.group('collections:import --help', () => {
  test('points to the import format in the repository: docs/import-format.md and docs/collections-operations.md', async ({
    assert,
  }) => {
    const { code, output } = await aceHelp('collections:import')
    assert.equal(code, 0, output)
    assert.include(output, 'docs/import-format.md')
    assert.notInclude(output, '../shared/spec')
    assert.include(output, 'docs/collections-operations.md, section "collections:import"')
    assert.include(output, 'node ace collections:import export.jsonl')

    // The section it names is there, with the rules of a line.
    const docs = await readFile(app.makePath('docs', 'collections-operations.md'), 'utf8')
    assert.include(docs, '\n## `collections:import`\n')
    assert.include(docs, '\n### What a line must be\n')
  }).timeout(180_000)
})
