/*
| Development logs are human-readable (issue 22 › 6): pino-pretty in development,
| JSON lines in production (pino-pretty is a dev dependency, absent there).
*/
import { test } from '@japa/runner'
import { eventually, REQUEST_MS, startProductionServer } from '#tests/helpers/server_process'

const STARTED = 'started HTTP server'

test.group('Development logs', () => {
  for (const [environment, readable] of [
    ['development', true],
    ['production', false],
  ] as const) {
    test(`${environment}: log lines are ${readable ? 'human-readable' : 'JSON'}`, async ({
      assert,
      cleanup,
    }) => {
      const server = await startProductionServer({ NODE_ENV: environment, LOG_LEVEL: 'info' })
      cleanup(() => server.kill())
      // Development logs through pino-pretty on a worker thread: the line may reach the
      // output after the server already answers, so wait for a whole line with it.
      const startedLine = () =>
        server
          .output()
          .split('\n')
          .slice(0, -1)
          .find((candidate) => candidate.includes(STARTED))
      await eventually(async () => startedLine() !== undefined, 'the started line logged', {
        within: REQUEST_MS,
        every: 50,
      }).catch(() => undefined)
      const line = startedLine()
      assert.exists(line, server.output())
      if (readable) {
        assert.match(line!, new RegExp(`^\\[\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\] INFO .*${STARTED}`))
      } else {
        assert.equal(JSON.parse(line!).msg, `${STARTED} on 127.0.0.1:${server.port}`)
      }
    }).timeout(180_000)
  }
})
