/*
| The server's memory settings are written in three places an operator runs from:
| README › Deployment, `npm start` (package.json) and `.ci/deploy_check`. They must say
| the same thing: the glibc environment (arenas), V8's young generation and its old
| generation's room (docs: README › Deployment).
*/
import { readFileSync } from 'node:fs'
import { test } from '@japa/runner'

/** The environment assignments and node flags of the first `... node ... bin/server.js` command in `text`. */
function serverCommand(text: string) {
  const joined = text.replace(/\\\n\s*/g, ' ')
  const match = /((?:[A-Z_]+=\S+\s+)*)node\s+((?:--\S+\s+)*)bin\/server\.js/.exec(joined)
  if (!match) throw new Error('no command running node bin/server.js')
  const environment = match[1]
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((assignment) => {
      const [name, value] = assignment.split('=')
      // `npm start` keeps a value the environment already sets: ${NAME:-default}.
      return `${name}=${value.replace(/^\$\{[A-Z_]+:-(.*)\}$/, '$1')}`
    })
  return { environment, flags: match[2].trim().split(/\s+/).filter(Boolean) }
}

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
      '--heap-growing-percent=20',
    ])
    assert.includeMembers(documented.environment, ['MALLOC_ARENA_MAX=2'])
    // A fixed trim threshold hands each hash's scrypt buffer back to the system, and the
    // next hash faults it in again (README › Deployment).
    assert.notMatch(documented.environment.join(' '), /MALLOC_TRIM_THRESHOLD_/)
  })
})
