/*
| app/platform/fair_line.ts: the line of the hashing threads and of the image lane. A
| freed place goes to the key whose last task started least recently (keys never
| started first, in arrival order); a key that cannot take a place keeps its turn; a
| key is forgotten once none of its tasks runs or waits.
*/
import { test } from '@japa/runner'
import { FairLine } from '#platform/fair_line'

/** Takes every task the line gives, in order. */
function drain(line: FairLine<string>, eligible?: (key: string) => boolean) {
  const taken: string[] = []
  for (let next = line.takeNext(eligible); next; next = line.takeNext(eligible)) taken.push(next)
  return taken
}

test.group('Fair line', () => {
  test('a freed place goes to the key served least recently; keys never served first, in arrival order', ({
    assert,
  }) => {
    const line = new FairLine<string>()
    line.started('a')
    for (const name of ['a1', 'a2']) line.add('a', name)
    line.add('b', 'b1')
    line.add('c', 'c1')
    line.add('b', 'b2')
    assert.equal(line.length, 5)
    assert.deepEqual(drain(line), ['b1', 'c1', 'a1', 'b2', 'a2'])
    assert.equal(line.length, 0)
  })

  test('a key that may not take a place now keeps its turn for the next', ({ assert }) => {
    const line = new FairLine<string>()
    line.add('a', 'a1')
    line.add('b', 'b1')
    line.add('c', 'c1')
    assert.deepEqual(
      drain(line, (key) => key !== 'a'),
      ['b1', 'c1']
    )
    line.add('b', 'b2')
    assert.equal(line.takeNext(), 'a1')
    assert.equal(line.takeNext(), 'b2')
  })

  test('a removed task is not started; removing it twice is refused', ({ assert }) => {
    const line = new FairLine<string>()
    line.add('a', 'a1')
    line.add('a', 'a2')
    assert.isTrue(line.remove('a', 'a1'))
    assert.isFalse(line.remove('a', 'a1'))
    assert.equal(line.waitingOf('a'), 1)
    assert.deepEqual(drain(line), ['a2'])
  })

  test('forget: a key with nothing left starts over as a new key; one with tasks waiting keeps its turn', ({
    assert,
  }) => {
    const line = new FairLine<string>()
    line.started('a')
    line.started('b')
    line.add('b', 'b1')
    line.add('a', 'a1')
    // b has a task waiting: forgetting it keeps its turn, after a.
    line.forget('b')
    assert.equal(line.takeNext(), 'a1')
    // a has nothing left: forgotten, it goes before b again.
    line.forget('a')
    line.add('a', 'a2')
    line.add('b', 'b2')
    assert.deepEqual(drain(line), ['a2', 'b1', 'b2'])
  })

  test('startBefore counts, for each task of the key waiting, one task of each key whose turn comes first', ({
    assert,
  }) => {
    const line = new FairLine<string>()
    line.started('a')
    for (const name of ['a1', 'a2', 'a3']) line.add('a', name)
    line.add('b', 'b1')
    line.add('b', 'b2')
    // A new key: after b (never served, arrived first) and before a; one of b's.
    assert.equal(line.startBefore('c'), 1)
    // b's third: its own two, then two of a's (a's turn comes after b's).
    assert.equal(line.startBefore('b'), 4)
    // a's fourth: its own three, and b's two (b's turn comes first, every round).
    assert.equal(line.startBefore('a'), 5)
    line.add('c', 'c1')
    assert.deepEqual(drain(line), ['b1', 'c1', 'a1', 'b2', 'a2', 'a3'])
  })
})
