/*
| bench/ratio_interval.ts: the soak's interval of a last ÷ first p99 ratio, with the
| random source fixed so that every run of the test draws the same.
*/
import { test } from '@japa/runner'
import { percentileRatioInterval } from '../../bench/ratio_interval.js'

/** A small seeded generator (mulberry32): the same draws on every run. */
function seeded(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state)
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296
  }
}

/** 700 answers shaped as a soak's: most near `typical` ms, a tail up to about 3 times it. */
function window(typical: number, random: () => number) {
  return Array.from({ length: 700 }, () => typical * (1 + 2 * random() ** 6))
}

test.group('The interval of a p99 ratio (bench/ratio_interval.ts)', () => {
  test('two windows of the same load give an interval around 1x', ({ assert }) => {
    const random = seeded(1)
    const interval = percentileRatioInterval(window(10, random), window(10, random), 99, {
      random,
    })!
    assert.isBelow(interval[0], 1)
    assert.isAbove(interval[1], 1)
  })

  test('a window whose answers all take 1.5 times as long gives an interval around 1.5x, above 1.2x', ({
    assert,
  }) => {
    const random = seeded(2)
    const early = window(10, random)
    const late = early.map((ms) => ms * 1.5)
    const interval = percentileRatioInterval(late, early, 99, { random })!
    assert.isAbove(interval[0], 1.2)
    assert.isAtMost(interval[0], 1.5)
    assert.isAtLeast(interval[1], 1.5)
  })

  test('the interval narrows as the confidence asked for falls', ({ assert }) => {
    const early = window(10, seeded(3))
    const late = window(10, seeded(4))
    const wide = percentileRatioInterval(late, early, 99, { random: seeded(5), confidence: 0.95 })!
    const narrow = percentileRatioInterval(late, early, 99, { random: seeded(5), confidence: 0.5 })!
    assert.isAtMost(wide[0], narrow[0])
    assert.isAtLeast(wide[1], narrow[1])
    assert.isBelow(narrow[1] - narrow[0], wide[1] - wide[0])
  })

  test('no interval without answers in both windows, or with an early percentile of 0', ({
    assert,
  }) => {
    assert.isNull(percentileRatioInterval([], [1, 2, 3], 99))
    assert.isNull(percentileRatioInterval([1, 2, 3], [], 99))
    assert.isNull(percentileRatioInterval([1, 2, 3], [0, 0, 0], 99))
  })
})
