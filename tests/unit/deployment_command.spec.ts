/*
| The server's memory settings are written in three places an operator runs from:
| README › Deployment, `npm start` (package.json) and `.ci/deploy_check`. They must say
| the same thing: the glibc environment (arenas), V8's young generation and its old
| generation's room (docs: README › Deployment).
*/
import { readFileSync } from 'node:fs'
import { test } from '@japa/runner'
import { serverCommand } from '../../bench/deployment_command.js'

test.group('Deployment command', () => {
  test('README › Deployment, npm start and the deploy check run the server with the same memory settings', ({
    assert,
  }) => {
    const readme = readFileSync('README.md', 'utf8')
    const deployment = readme.slice(readme.indexOf('## Deployment'))
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      scripts: { start: string }
    }
    const documented = serverCommand(deployment)
    assert.deepEqual(serverCommand(scripts.start), documented)
    assert.deepEqual(serverCommand(readFileSync('.ci/deploy_check', 'utf8')), documented)
    assert.includeMembers(documented.flags, [
      '--min-semi-space-size=16',
      '--max-semi-space-size=16',
    ])
    // bin/server.ts sets the growing factor in code, which overrides a command-line value.
    assert.notInclude(documented.flags.join(' '), '--heap-growing-percent')
    assert.equal(documented.environment.MALLOC_ARENA_MAX, '2')
    // A fixed trim threshold hands each hash's scrypt buffer back to the system, and the
    // next hash faults it in again (README › Deployment).
    assert.notProperty(documented.environment, 'MALLOC_TRIM_THRESHOLD_')
  })
})
