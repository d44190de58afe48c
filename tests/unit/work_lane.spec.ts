/*
| app/platform/work_lane.ts: at most `concurrency` tasks at once; a freed place to the
| key served least recently, ties in arrival order (fair_line.ts); at most `maxQueued`
| waiting and `maxPerKey` per key, else LaneFullError at once;
| a key's time budget, its tasks counted at their expected time from admission;
| Retry-After as the expected wait; and a wait bounded by `maxWaitMs`.
*/
import { test } from '@japa/runner'
import { WorkLane } from '#platform/work_lane'
import { LaneAbandoned, LaneFullError } from '#platform/lane_refusal'

/** A task that runs until `finish()` is called. */
function pendingTask() {
  let finish!: () => void
  let fail!: (error: Error) => void
  let started = false
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve
    fail = reject
  })
  return {
    task: () => {
      started = true
      return done
    },
    finish,
    fail,
    get started() {
      return started
    },
  }
}

const turns = () => new Promise((resolve) => setImmediate(resolve))

function lane(options: Partial<ConstructorParameters<typeof WorkLane>[0]> = {}) {
  return new WorkLane({ name: 'test', concurrency: 1, maxQueued: 3, maxPerKey: 3, ...options })
}

test.group('WorkLane', () => {
  test('runs at most `concurrency` tasks at once, the others in arrival order', async ({
    assert,
  }) => {
    const subject = lane({ concurrency: 2, maxQueued: 5, maxPerKey: 5 })
    const tasks = Array.from({ length: 4 }, () => pendingTask())
    const runs = tasks.map((task, index) => subject.run(`key-${index}`, task.task))
    await turns()
    assert.deepEqual(
      tasks.map((task) => task.started),
      [true, true, false, false]
    )
    assert.deepEqual([subject.running, subject.queued], [2, 2])

    tasks[1].finish()
    await turns()
    assert.deepEqual(
      tasks.map((task) => task.started),
      [true, true, true, false]
    )
    assert.deepEqual([subject.running, subject.queued], [2, 1])

    tasks[0].finish()
    tasks[2].finish()
    await turns()
    assert.isTrue(tasks[3].started)
    tasks[3].finish()
    await Promise.all(runs)
    assert.deepEqual([subject.running, subject.queued], [0, 0])
  })

  test('a task still waiting maxWaitMs after its admission leaves the line (LaneFullError waited_too_long, with Retry-After): it never runs, and frees its place and its key share', async ({
    assert,
  }) => {
    const timers: Array<{ fire: () => void; ms: number; cancelled: boolean }> = []
    const subject = lane({
      maxQueued: 1,
      maxPerKey: 1,
      maxWaitMs: 40_000,
      setTimer: (callback, ms) => {
        const timer = { fire: callback, ms, cancelled: false }
        timers.push(timer)
        return () => (timer.cancelled = true)
      },
    })
    const running = pendingTask()
    const late = pendingTask()
    const first = subject.run('a', running.task)
    const waited = subject.run('b', late.task).catch((error) => error)
    // Only a task that waits gets a deadline for its wait.
    assert.deepEqual(
      timers.map((timer) => timer.ms),
      [40_000]
    )

    timers[0].fire()
    const refusal = await waited
    assert.instanceOf(refusal, LaneFullError)
    assert.equal(refusal.reason, 'waited_too_long')
    assert.isAtLeast(refusal.retryAfterSeconds, 1)
    assert.deepEqual([subject.running, subject.queued], [1, 0])

    // b's share and the waiting place are free: its next task waits, and starts in turn.
    const next = pendingTask()
    const again = subject.run('b', next.task)
    running.finish()
    await turns()
    assert.isFalse(late.started)
    assert.isTrue(next.started)
    // A task that got its place in time has its wait's deadline cancelled.
    assert.isTrue(timers[1].cancelled)
    next.finish()
    await Promise.all([first, again])
  })

  test('a waiting task whose signal aborts is dropped (LaneAbandoned): it never runs, and frees its place in line and its key share', async ({
    assert,
  }) => {
    const subject = lane({ maxQueued: 1, maxPerKey: 1 })
    const running = pendingTask()
    const dropped = pendingTask()
    const first = subject.run('a', running.task)
    const callerGone = new AbortController()
    const abandoned = subject.run('b', dropped.task, 1, callerGone.signal).catch((error) => error)
    assert.deepEqual([subject.running, subject.queued], [1, 1])

    callerGone.abort()
    assert.instanceOf(await abandoned, LaneAbandoned)
    assert.deepEqual([subject.running, subject.queued], [1, 0])
    // Its place and its key's share are free again: b's next task is admitted.
    const next = pendingTask()
    const again = subject.run('b', next.task)
    running.finish()
    await turns()
    assert.isFalse(dropped.started)
    assert.isTrue(next.started)
    next.finish()
    await Promise.all([first, again])
    // A signal aborted before the call is refused at once.
    const late = pendingTask()
    const refused = await subject.run('c', late.task, 1, callerGone.signal).catch((error) => error)
    assert.instanceOf(refused, LaneAbandoned)
    assert.isFalse(late.started)
  })

  test('refuses at once beyond maxQueued waiting tasks (queue_full)', async ({ assert }) => {
    const subject = lane({ maxQueued: 1 })
    const running = pendingTask()
    const waiting = pendingTask()
    const runs = [subject.run('a', running.task), subject.run('b', waiting.task)]
    const refusal = await subject.run('c', async () => 'never').catch((error) => error)
    assert.instanceOf(refusal, LaneFullError)
    assert.equal(refusal.reason, 'queue_full')
    assert.isAtLeast(refusal.retryAfterSeconds, 1)
    assert.isAtMost(refusal.retryAfterSeconds, 60)
    running.finish()
    waiting.finish()
    await Promise.all(runs)
  })

  test('refuses a key beyond maxPerKey tasks, running or waiting (key_busy), and admits other keys', async ({
    assert,
  }) => {
    const subject = lane({ maxPerKey: 2 })
    const tasks = [pendingTask(), pendingTask(), pendingTask()]
    const runs = [subject.run('a', tasks[0].task), subject.run('a', tasks[1].task)]
    const refusal = await subject.run('a', async () => 'never').catch((error) => error)
    assert.instanceOf(refusal, LaneFullError)
    assert.equal(refusal.reason, 'key_busy')
    runs.push(subject.run('b', tasks[2].task))
    assert.equal(subject.queued, 2)
    for (const task of tasks) task.finish()
    await Promise.all(runs)
    // Its share is back once its tasks are done.
    assert.equal(await subject.run('a', async () => 'again'), 'again')
  })

  test("a freed place goes to a key with no task started before another key's second task, not in arrival order", async ({
    assert,
  }) => {
    const subject = lane({ maxPerKey: 2 })
    const [firstOfA, secondOfA, firstOfB] = [pendingTask(), pendingTask(), pendingTask()]
    const runs = [
      subject.run('a', firstOfA.task),
      subject.run('a', secondOfA.task),
      subject.run('b', firstOfB.task),
    ]
    await turns()
    assert.deepEqual([firstOfA.started, secondOfA.started, firstOfB.started], [true, false, false])

    firstOfA.finish()
    await turns()
    assert.deepEqual([secondOfA.started, firstOfB.started], [false, true])

    firstOfB.finish()
    await turns()
    assert.isTrue(secondOfA.started)
    secondOfA.finish()
    await Promise.all(runs)
    assert.deepEqual([subject.running, subject.queued], [0, 0])
  })

  test('keys served in turn: a key whose task just ran waits behind the keys that waited longer', async ({
    assert,
  }) => {
    const subject = lane({ maxPerKey: 2 })
    const tasks = { a1: pendingTask(), b1: pendingTask(), a2: pendingTask(), c1: pendingTask() }
    const runs = [
      subject.run('a', tasks.a1.task),
      subject.run('b', tasks.b1.task),
      subject.run('a', tasks.a2.task),
      subject.run('c', tasks.c1.task),
    ]
    const started = () => Object.values(tasks).map((task) => task.started)
    await turns()
    tasks.a1.finish()
    await turns()
    // b and c have had no turn; b waited first.
    assert.deepEqual(started(), [true, true, false, false])
    tasks.b1.finish()
    await turns()
    assert.deepEqual(started(), [true, true, false, true])
    tasks.c1.finish()
    await turns()
    assert.deepEqual(started(), [true, true, true, true])
    tasks.a2.finish()
    await Promise.all(runs)
  })

  test('a failing task passes its error on and frees its place and its key share', async ({
    assert,
  }) => {
    const subject = lane({ maxPerKey: 1 })
    const failing = pendingTask()
    const next = pendingTask()
    const failed = subject.run('a', failing.task).catch((error) => error)
    const afterwards = subject.run('b', next.task)
    failing.fail(new Error('decoder crashed'))
    const error = await failed
    assert.equal(error.message, 'decoder crashed')
    await turns()
    assert.isTrue(next.started)
    next.finish()
    await afterwards
    assert.equal(await subject.run('a', async () => 'again'), 'again')
  })

  test('with maxQueued 0 nothing waits: busy means refused', async ({ assert }) => {
    const subject = lane({ maxQueued: 0 })
    const running = pendingTask()
    const run = subject.run('a', running.task)
    const refusal = await subject.run('b', async () => 'never').catch((error) => error)
    assert.equal(refusal.reason, 'queue_full')
    running.finish()
    await run
    assert.equal(await subject.run('b', async () => 'now'), 'now')
  })

  test('a key whose tasks took more than secondsPerKeyPerMinute is refused (key_budget) until repaid; other keys run', async ({
    assert,
  }) => {
    let now = 0
    // 30 s a minute: the budget refills half a second each second, up to 30 s, and a
    // task's time is charged when it ends.
    const subject = lane({ secondsPerKeyPerMinute: 30, now: () => now })
    // 30 - 20 = 10 s left; then 10 + 10 - 20 = 0: admitted at exactly zero.
    await subject.run('a', async () => void (now += 20_000))
    await subject.run('a', async () => void (now += 20_000))
    assert.equal(await subject.run('a', async () => 'at zero'), 'at zero')
    // 0 - 4 + 2 = -2 s: repaid in 4 s.
    await subject.run('a', async () => void (now += 4000))
    const refusal = await subject.run('a', async () => 'never').catch((error) => error)
    assert.instanceOf(refusal, LaneFullError)
    assert.equal(refusal.reason, 'key_budget')
    assert.equal(refusal.retryAfterSeconds, 4)
    assert.throws(() => subject.refuseWhenFull('a'))
    assert.equal(await subject.run('b', async () => 'other key'), 'other key')

    now += 3999
    assert.throws(() => subject.refuseWhenFull('a'))
    now += 1
    assert.equal(await subject.run('a', async () => 'repaid'), 'repaid')
  })

  test('a budget refills to at most one minute of it, and a clock set back deepens no debt', async ({
    assert,
  }) => {
    let now = 0
    const subject = lane({ secondsPerKeyPerMinute: 30, now: () => now })
    // An hour idle saves no more than 30 s: a 64 s task leaves 30 - 64 = -34 s,
    // repaid in 68 s.
    now += 3_600_000
    await subject.run('a', async () => void (now += 64_000))
    const retryAfter = () => {
      try {
        subject.refuseWhenFull('a')
        return 0
      } catch (error) {
        return (error as LaneFullError).retryAfterSeconds
      }
    }
    assert.equal(retryAfter(), 68)
    now -= 60_000
    assert.equal(retryAfter(), 68)
  })

  test('without secondsPerKeyPerMinute, time is not counted', async ({ assert }) => {
    let now = 0
    const subject = lane({ now: () => now })
    await subject.run('a', async () => void (now += 3_600_000))
    assert.equal(await subject.run('a', async () => 'still'), 'still')
  })

  test("a key's admitted tasks are charged to its budget at their expected time: its next task is judged with them (key_budget), and the real time replaces the estimate when they end", async ({
    assert,
  }) => {
    let now = 0
    // 30 s a minute, 1 s per unit of work until measured.
    const subject = lane({ concurrency: 2, secondsPerKeyPerMinute: 30, now: () => now })
    const first = pendingTask()
    // Expected 35 s: 30 - 35 = -5 s available while it runs, repaid in 10 s.
    const running = subject.run('a', first.task, 35)
    const refusal = await subject.run('a', async () => 'never').catch((error) => error)
    assert.instanceOf(refusal, LaneFullError)
    assert.equal(refusal.reason, 'key_budget')
    assert.equal(refusal.retryAfterSeconds, 10)
    assert.equal(await subject.run('b', async () => 'other key', 1), 'other key')

    // It took 2 s: 28 s left, and the key's next task is admitted.
    now += 2000
    first.finish()
    await running
    assert.equal(await subject.run('a', async () => 'admitted'), 'admitted')
  })

  test('Retry-After is the expected time left of the tasks running and waiting, over the places; the expected time of a unit is learned from the tasks run', async ({
    assert,
  }) => {
    let now = 0
    const subject = lane({ maxQueued: 1, secondsPerWork: 1, now: () => now })
    const retryAfter = () => {
      try {
        subject.refuseWhenFull('c')
        return 0
      } catch (error) {
        return (error as LaneFullError).retryAfterSeconds
      }
    }
    const tasks = [pendingTask(), pendingTask()]
    const runs = [subject.run('a', tasks[0].task, 20), subject.run('b', tasks[1].task, 30)]
    assert.equal(retryAfter(), 50)
    // 5 s into the running task: 15 + 30 left.
    now += 5000
    assert.equal(retryAfter(), 45)
    // The first took 10 s for 20 units: 0.5 s a unit, the estimate moves a fifth of the way.
    now += 5000
    tasks[0].finish()
    await turns()
    assert.equal(retryAfter(), 0)
    const third = pendingTask()
    runs.push(subject.run('c', third.task, 10))
    // b: the 30 s expected when it was admitted, c: 10 units at 0.9 s.
    assert.equal(retryAfter(), 39)
    tasks[1].finish()
    third.finish()
    await Promise.all(runs)
  })
})
