/*
| app/platform/hash_queue.ts: at most `slots` hashes at once; the others wait per key,
| in the fair line (the key served least recently first); refused at once beyond the bounds (count, per key, expected
| wait), refused when waiting past the bound, dropped when their signal aborts.
*/
import { test } from '@japa/runner'
import { HashQueue, type HashQueueBounds } from '#platform/hash_queue'
import { HashAbandoned, HashQueueFull } from '#platform/hash_refusal'

/** Hashes that finish when the test says, recording the order they started in. */
function controlledHashes() {
  const started: string[] = []
  const finishers = new Map<string, () => void>()
  return {
    started,
    hash: (name: string) => () => {
      started.push(name)
      return new Promise<string>((resolve) => finishers.set(name, () => resolve(name)))
    },
    finish: async (name: string) => {
      finishers.get(name)!()
      await turns()
    },
  }
}

/** A clock for the waiting bound: timers fire when the test says. */
function controlledTimers() {
  const timers = new Set<() => void>()
  return {
    setTimer: (callback: () => void, _ms: number) => {
      timers.add(callback)
      return () => timers.delete(callback)
    },
    get pending() {
      return timers.size
    },
    fireAll: async () => {
      for (const callback of [...timers]) {
        timers.delete(callback)
        callback()
      }
      await turns()
    },
  }
}

const turns = () => new Promise((resolve) => setImmediate(resolve))

function queueOf(slots: number, bounds: Partial<HashQueueBounds> = {}, slotsPerKey?: number) {
  const timers = controlledTimers()
  const queue = new HashQueue({
    slots,
    slotsPerKey,
    bounds: () => ({ maxQueued: 100, maxPerKey: 100, maxWaitMs: 60_000, ...bounds }),
    expectedHashMs: 100,
    setTimer: timers.setTimer,
  })
  return { queue, timers }
}

/** Settles to the error a refused run rejects with. */
const refusalOf = (run: Promise<unknown>) =>
  run.then(
    () => null,
    (error: unknown) => error
  )

test.group('Hash queue', () => {
  test('at most `slots` hashes run at once; the others start as slots free', async ({ assert }) => {
    const { queue } = queueOf(2)
    const hashes = controlledHashes()
    const runs = ['a1', 'a2', 'a3'].map((name) => queue.run('a', hashes.hash(name)))
    assert.deepEqual(hashes.started, ['a1', 'a2'])
    assert.include(queue.stats, { running: 2, queued: 1, admitted: 3, started: 2 })

    await hashes.finish('a1')
    assert.deepEqual(hashes.started, ['a1', 'a2', 'a3'])
    await hashes.finish('a2')
    await hashes.finish('a3')
    assert.deepEqual(await Promise.all(runs), ['a1', 'a2', 'a3'])
    assert.include(queue.stats, { running: 0, queued: 0, started: 3 })
  })

  test('keys are served in turn, the key served least recently first: a burst of one key does not hold back another', async ({
    assert,
  }) => {
    const { queue } = queueOf(1)
    const hashes = controlledHashes()
    const flood = ['a1', 'a2', 'a3', 'a4'].map((name) => queue.run('a', hashes.hash(name)))
    const other = queue.run('b', hashes.hash('b1'))
    const third = queue.run('c', hashes.hash('c1'))
    // a1 started: a2, queued before b1 and c1, waits behind them.
    for (const name of ['a1', 'b1', 'c1', 'a2']) await hashes.finish(name)
    // While a3 runs, d1 arrives: it goes before a4, queued long before it.
    const late = queue.run('d', hashes.hash('d1'))
    for (const name of ['a3', 'd1', 'a4']) await hashes.finish(name)
    await Promise.all([...flood, other, third, late])
    assert.deepEqual(hashes.started, ['a1', 'b1', 'c1', 'a2', 'a3', 'd1', 'a4'])
  })

  test('one key runs at most slotsPerKey hashes at once: another key finds a slot free and starts at once', async ({
    assert,
  }) => {
    const { queue } = queueOf(2, {}, 1)
    const hashes = controlledHashes()
    const flood = ['a1', 'a2', 'a3'].map((name) => queue.run('a', hashes.hash(name)))
    assert.deepEqual(hashes.started, ['a1'])
    assert.include(queue.stats, { running: 1, queued: 2 })

    const other = queue.run('b', hashes.hash('b1'))
    assert.deepEqual(hashes.started, ['a1', 'b1'])
    // The key at its share keeps its place: its next hash starts when its own ends.
    await hashes.finish('b1')
    assert.deepEqual(hashes.started, ['a1', 'b1'])
    await hashes.finish('a1')
    assert.deepEqual(hashes.started, ['a1', 'b1', 'a2'])
    await hashes.finish('a2')
    await hashes.finish('a3')
    assert.deepEqual(await Promise.all([...flood, other]), ['a1', 'a2', 'a3', 'b1'])
  })

  test('a key at its share is expected to wait for its own hashes ahead, through its share of the slots', async ({
    assert,
  }) => {
    // Two slots, one per key, 100 ms a hash: a's third hash waits for a1 and a2 in turn.
    const { queue } = queueOf(2, { maxWaitMs: 150 }, 1)
    const hashes = controlledHashes()
    void queue.run('a', hashes.hash('a1'))
    void queue.run('a', hashes.hash('a2'))
    const refused = await refusalOf(queue.run('a', hashes.hash('a3')))
    assert.equal((refused as HashQueueFull).reason, 'wait_too_long')
    assert.notInclude(hashes.started, 'a3')
    // Another key still starts at once.
    void queue.run('b', hashes.hash('b1'))
    assert.deepEqual(hashes.started, ['a1', 'b1'])
  })

  test('beyond maxQueued waiting, or maxPerKey of one key, a hash is refused at once with Retry-After', async ({
    assert,
  }) => {
    const { queue } = queueOf(1, { maxQueued: 3, maxPerKey: 2 })
    const hashes = controlledHashes()
    void queue.run('a', hashes.hash('running'))
    void queue.run('a', hashes.hash('a1'))
    void queue.run('a', hashes.hash('a2'))

    const keyFull = await refusalOf(queue.run('a', hashes.hash('a3')))
    assert.instanceOf(keyFull, HashQueueFull)
    assert.equal((keyFull as HashQueueFull).reason, 'key_full')
    assert.isAtLeast((keyFull as HashQueueFull).retryAfterSeconds, 1)

    void queue.run('b', hashes.hash('b1'))
    const queueFull = await refusalOf(queue.run('c', hashes.hash('c1')))
    assert.instanceOf(queueFull, HashQueueFull)
    assert.equal((queueFull as HashQueueFull).reason, 'queue_full')
    assert.notInclude(hashes.started, 'a3')
    assert.notInclude(hashes.started, 'c1')
    assert.deepInclude(queue.stats, {
      queued: 3,
      admitted: 4,
      refused: { queue_full: 1, key_full: 1, wait_too_long: 0, waited_too_long: 0 },
    })
  })

  test('admission judges the expected wait from the place in the fair line', async ({ assert }) => {
    // 100 ms a hash, one slot: a hash behind n others is expected to wait (n + 1) x 100 ms.
    const { queue } = queueOf(1, { maxWaitMs: 250 })
    const hashes = controlledHashes()
    void queue.run('a', hashes.hash('running'))
    void queue.run('a', hashes.hash('a1'))
    // b has had no turn: it goes before a1, (0 + 1) x 100 ms, admitted.
    void queue.run('b', hashes.hash('b1'))
    // Another a waits behind a1 and b1: 300 ms, refused.
    const refused = await refusalOf(queue.run('a', hashes.hash('a2')))
    assert.equal((refused as HashQueueFull).reason, 'wait_too_long')
    assert.equal((refused as HashQueueFull).retryAfterSeconds, 1)
    // A new key goes after b1 and before a1: 200 ms, admitted.
    void queue.run('c', hashes.hash('c1'))
    // The next new key goes after b1 and c1: 300 ms, refused.
    const fourth = await refusalOf(queue.run('d', hashes.hash('d1')))
    assert.equal((fourth as HashQueueFull).reason, 'wait_too_long')

    // Faster hashes measured: the same place is now within the bound.
    for (let sample = 0; sample < 20; sample++) queue.observe(40)
    assert.isBelow(queue.expectedHashMs, 45)
    const admitted = queue.run('d', hashes.hash('d1'))
    for (const name of ['running', 'b1', 'c1', 'd1', 'a1']) await hashes.finish(name)
    assert.equal(await admitted, 'd1')
    assert.deepEqual(hashes.started, ['running', 'b1', 'c1', 'd1', 'a1'])
  })

  test('Retry-After is the expected wait in whole seconds', async ({ assert }) => {
    const { queue } = queueOf(2, { maxQueued: 40 })
    const hashes = controlledHashes()
    for (let index = 0; index < 2 + 40; index++)
      void queue.run(`k${index}`, hashes.hash(`${index}`))
    const refused = await refusalOf(queue.run('late', hashes.hash('late')))
    // 40 ahead and a slot to free, over two slots, at 100 ms: 2.05 s, so 3 s.
    assert.equal((refused as HashQueueFull).retryAfterSeconds, 3)
  })

  test('a hash still waiting when its bound passes is refused and never runs', async ({
    assert,
  }) => {
    const { queue, timers } = queueOf(1)
    const hashes = controlledHashes()
    void queue.run('a', hashes.hash('running'))
    const late = refusalOf(queue.run('b', hashes.hash('b1')))
    assert.equal(timers.pending, 1)
    await timers.fireAll()
    const refused = await late
    assert.instanceOf(refused, HashQueueFull)
    assert.equal((refused as HashQueueFull).reason, 'waited_too_long')
    await hashes.finish('running')
    assert.deepEqual(hashes.started, ['running'])
    assert.include(queue.stats, { queued: 0, running: 0 })
  })

  test('a hash whose signal aborts while it waits is dropped before it runs; one that started is not', async ({
    assert,
  }) => {
    const { queue, timers } = queueOf(1)
    const hashes = controlledHashes()
    const runningClient = new AbortController()
    const running = queue.run('a', hashes.hash('running'), runningClient.signal)
    const gone = new AbortController()
    const dropped = refusalOf(queue.run('b', hashes.hash('gone'), gone.signal))
    const next = queue.run('c', hashes.hash('next'))

    gone.abort()
    runningClient.abort()
    assert.instanceOf(await dropped, HashAbandoned)
    assert.equal(timers.pending, 1, "the dropped hash's deadline is cancelled")
    await hashes.finish('running')
    assert.equal(await running, 'running')
    await hashes.finish('next')
    assert.equal(await next, 'next')
    assert.deepEqual(hashes.started, ['running', 'next'])

    const already = await refusalOf(queue.run('d', hashes.hash('late'), AbortSignal.abort()))
    assert.instanceOf(already, HashAbandoned)
    assert.include(queue.stats, { abandoned: 2, started: 2 })
  })

  test('a hash that fails frees its slot for the next', async ({ assert }) => {
    const { queue } = queueOf(1)
    const hashes = controlledHashes()
    const failing = refusalOf(
      queue.run('a', async () => {
        await turns()
        throw new Error('thread died')
      })
    )
    const next = queue.run('b', hashes.hash('b1'))
    assert.equal(((await failing) as Error).message, 'thread died')
    await hashes.finish('b1')
    assert.equal(await next, 'b1')
  })
})
