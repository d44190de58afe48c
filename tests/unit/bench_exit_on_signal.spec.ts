/*
| bench/exit_on_signal.ts: a bench stopped with SIGTERM or SIGINT exits through
| process.exit (143 or 130), so its 'exit' handlers stop the processes it started. The
| started process shares the bench's stdout, so the pipe ends only once both are gone:
| an orphan would keep it open.
*/
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { test } from '@japa/runner'

const BENCH_LIKE = fileURLToPath(
  new URL('../fixtures/bench_signal/bench_like.mjs', import.meta.url)
)
const EXIT_ON_SIGNAL = pathToFileURL(
  fileURLToPath(new URL('../../bench/exit_on_signal.ts', import.meta.url))
).href

async function stopWith(signal: 'SIGTERM' | 'SIGINT') {
  const bench = spawn(
    process.execPath,
    ['--import=@poppinss/ts-exec', BENCH_LIKE, EXIT_ON_SIGNAL],
    { stdio: ['ignore', 'pipe', 'inherit'] }
  )
  let output = ''
  const ended = once(bench.stdout, 'end')
  await new Promise<void>((ready) =>
    bench.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('ready')) ready()
    })
  )
  const exited = once(bench, 'exit')
  bench.kill(signal)
  const [code] = await exited
  await ended
  return code
}

test.group('Benches stopped with a signal', () => {
  test('SIGTERM: the bench exits 143 and the process it started is gone', async ({ assert }) => {
    assert.equal(await stopWith('SIGTERM'), 143)
  }).timeout(30_000)

  test('SIGINT: the bench exits 130 and the process it started is gone', async ({ assert }) => {
    assert.equal(await stopWith('SIGINT'), 130)
  }).timeout(30_000)
})
