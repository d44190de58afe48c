/*
| A rolling restart loses no request (issue 14 › Many instances behave as one):
| autocannon load through a round-robin balancer (tests/cluster/helpers/balancer.ts,
| health-checked, never retrying) spread across two instances; each instance in turn
| gets SIGTERM, drains (readiness 503, SHUTDOWN_DRAIN_MS), exits 0 and is started
| again. Every request the load tool sent must succeed.
*/
import { test } from '@japa/runner'
import autocannon from 'autocannon'
import { signedInMember } from '#tests/helpers/portal'
import { nextPort, Pair, resetCluster, sleep } from './helpers/instances.js'
import { HEALTH_INTERVAL_MS, RoundRobinBalancer } from './helpers/balancer.js'
import { route } from '#tests/helpers/routes'

// Longer than several health-check intervals: the balancer notices the 503 first.
const DRAIN_MS = 10 * HEALTH_INTERVAL_MS

test.group('Rolling restart under load', (group) => {
  const pair = new Pair('redis', {
    RATE_LIMIT_MULTIPLIER: '100000',
    SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    LOG_LEVEL: 'error',
  })
  group.setup(async () => {
    await pair.start()
    return () => pair.stop()
  })
  group.each.setup(() => resetCluster())

  test('SIGTERM one instance, start it again, then the other: no request fails', async ({
    assert,
  }) => {
    const member = await signedInMember('developer')
    const balancer = await new RoundRobinBalancer(pair.instances).start(await nextPort())
    let stopLoad = () => {}
    try {
      const statuses: Record<string, number> = {}
      let load: autocannon.Instance | undefined
      const finished = new Promise<autocannon.Result>((resolve, reject) => {
        load = autocannon(
          {
            url: `${balancer.url}${route('profile.show')}`,
            connections: 12,
            duration: 60,
            headers: { authorization: member.bearer },
          },
          (error, result) => (error ? reject(error) : resolve(result))
        )
        load.on('response', (_client, status) => {
          statuses[status] = (statuses[status] ?? 0) + 1
        })
      })
      stopLoad = () => load?.stop()

      await sleep(1_500)
      const restarts: Array<{ name: string; exitCode: number | null; servedAfter: number }> = []
      for (const instance of pair.instances) {
        const exitCode = await instance.stop()
        await instance.start()
        await balancer.untilHealthy(instance)
        const backend = balancer.backends.find((candidate) => candidate.instance === instance)!
        const before = backend.served
        await sleep(1_500)
        restarts.push({
          name: instance.options.name,
          exitCode,
          servedAfter: backend.served - before,
        })
      }
      load!.stop()
      const result = await finished

      for (const restart of restarts) {
        assert.equal(restart.exitCode, 0, `${restart.name} exit code`)
        assert.isAbove(restart.servedAfter, 0, `${restart.name} back in rotation`)
      }
      assert.isAbove(result.requests.total, 200, 'the load really ran')
      assert.deepEqual(Object.keys(statuses), ['200'], JSON.stringify(statuses))
      assert.equal(result.errors, 0, 'connection errors')
      assert.equal(result.timeouts, 0, 'timeouts')
      assert.equal(result.non2xx, 0, 'non-2xx answers')
      assert.equal(balancer.failures, 0, 'requests the balancer could not complete')
      console.log(
        `rolling restart: ${statuses['200']} requests, all 200 (${Math.round(result.requests.average)} req/s), ` +
          `served per backend ${balancer.backends.map((backend) => backend.served).join('/')}`
      )
    } finally {
      stopLoad()
      await balancer.stop()
    }
  })
})
