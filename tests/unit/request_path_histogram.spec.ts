/*
| app/platform/request_path_histogram.ts: exposed exactly as prom-client's Histogram
| exposes the same observations.
*/
import { test } from '@japa/runner'
import fc from 'fast-check'
import { Histogram, Registry } from 'prom-client'
import { RequestPathHistogram } from '#platform/request_path_histogram'

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const LABEL_NAMES = ['route', 'method', 'status'] as const
type Labels = Record<(typeof LABEL_NAMES)[number], string>

/** The text of one registry holding prom-client's histogram, and of one holding ours. */
async function bothExpositions(observations: Array<[Labels, number]>) {
  const theirs = new Registry()
  const ours = new Registry()
  const options = { name: 'demo_seconds', help: 'A "help" text\\n.', buckets: BUCKETS }
  const reference = new Histogram({ ...options, labelNames: LABEL_NAMES, registers: [theirs] })
  const fast = new RequestPathHistogram({ ...options, labelNames: LABEL_NAMES, registers: [ours] })
  for (const [labels, value] of observations) {
    reference.observe(labels, value)
    fast.observe(labels, value)
  }
  return { theirs: await theirs.metrics(), ours: await ours.metrics(), fast }
}

const labels = fc.record({
  route: fc.constantFrom('profile.show', '/api/v1/portal/me', 'unmatched', 'a "quoted" \\ route'),
  method: fc.constantFrom('GET', 'POST', 'OTHER'),
  status: fc.constantFrom('200', '401', '503'),
})
const value = fc.oneof(
  fc.constantFrom(0, ...BUCKETS, 11),
  fc.double({ min: 0, max: 20, noNaN: true, noDefaultInfinity: true })
)

test.group('RequestPathHistogram', () => {
  test('is exposed as prom-client exposes the same observations', async ({ assert }) => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(labels, value), { maxLength: 60 }), async (seen) => {
        const { theirs, ours } = await bothExpositions(seen)
        assert.equal(ours, theirs)
      })
    )
  })

  test('counts an observation in the first bucket it fits and in +Inf', async ({ assert }) => {
    const seen: Array<[Labels, number]> = [
      [{ route: 'r', method: 'GET', status: '200' }, 0.01],
      [{ route: 'r', method: 'GET', status: '200' }, 99],
    ]
    const { ours } = await bothExpositions(seen)
    assert.include(ours, 'demo_seconds_bucket{le="0.005",route="r",method="GET",status="200"} 0')
    assert.include(ours, 'demo_seconds_bucket{le="0.01",route="r",method="GET",status="200"} 1')
    assert.include(ours, 'demo_seconds_bucket{le="10",route="r",method="GET",status="200"} 1')
    assert.include(ours, 'demo_seconds_bucket{le="+Inf",route="r",method="GET",status="200"} 2')
    assert.include(ours, 'demo_seconds_count{route="r",method="GET",status="200"} 2')
  })

  test('refuses a value that is not a finite number, as prom-client does', async ({ assert }) => {
    const { fast } = await bothExpositions([])
    assert.throws(() => fast.observe({ route: 'r', method: 'GET', status: '200' }, Number.NaN))
  })
})
