/*
| start/thread_heaps.ts: the deployment's young generation (16 MiB semi-spaces, README ›
| Deployment) stays the request thread's, and threads started afterwards (the password
| hashing threads) get V8's own, smaller one. Run in a process started with the
| deployment's flags, as `npm start` runs the server.
*/
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { test } from '@japa/runner'

const REPORT = fileURLToPath(new URL('../fixtures/thread_heaps/report.mjs', import.meta.url))
const THREAD_HEAPS = pathToFileURL(
  fileURLToPath(new URL('../../start/thread_heaps.ts', import.meta.url))
).href

async function newSpaces(...args: string[]) {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--min-semi-space-size=16',
    '--max-semi-space-size=16',
    '--import=@poppinss/ts-exec',
    REPORT,
    ...args,
  ])
  return JSON.parse(stdout) as { thread: number; worker: number }
}

test.group('Young generation of threads', () => {
  test('threads started after the flags are lifted do not take the request thread’s 16 MiB semi-spaces', async ({
    assert,
  }) => {
    const asDeployed = await newSpaces()
    // The fixture is sound: without the lifting, a worker takes the flags too.
    assert.isAtLeast(asDeployed.worker, 16)

    const lifted = await newSpaces(THREAD_HEAPS)
    assert.isAtLeast(lifted.thread, 16, 'the request thread keeps its young generation')
    assert.isBelow(lifted.worker, 16)
  })
})
