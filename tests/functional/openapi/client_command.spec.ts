/*
| Issue 22 › 3: the README's client command, run from the project root against the
| running service. openapi-typescript lints the document with the project's
| redocly.yaml (and no ignore file) and fails on any error, so every exception
| to that ruleset must be written in redocly.yaml itself.
*/
import { execFile } from 'node:child_process'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { promisify } from 'node:util'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import { route } from '#tests/helpers/routes'
import { READY_MS } from '#tests/helpers/server_process'
import { serverOrigin } from '#tests/helpers/test_server'

const run = promisify(execFile)

test.group("The README's typed-client command", () => {
  test('npx openapi-typescript <service>/openapi.json -o schema.d.ts works from the project root', async ({
    assert,
  }) => {
    const output = app.makePath('tmp', 'client-command', 'schema.d.ts')
    await rm(output, { force: true })
    await mkdir(app.makePath('tmp', 'client-command'), { recursive: true })
    const url = `${serverOrigin()}${route('openapi.document')}`

    const result = await run('npx', ['--no-install', 'openapi-typescript', url, '-o', output], {
      cwd: app.makePath(),
      timeout: READY_MS,
    }).catch((error) => error as { code: number; stdout: string; stderr: string })

    assert.equal('code' in result ? result.code : 0, 0, `${result.stdout}\n${result.stderr}`)
    const types = await readFile(output, 'utf8')
    assert.include(types, '"/api/v1/auth/login"')
  }).timeout(180_000)
})
