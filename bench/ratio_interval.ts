/*
| How far a ratio of two windows' percentiles can be trusted (bench/soak.ts, issue 38 ›
| goal 3): a percentile bootstrap. Each window's answers are drawn again at random, with
| replacement, as many as it had; the ratio of the two redrawn percentiles is taken, many
| times; the interval holds the middle `confidence` of those ratios.
|
| Why: a window's p99 is its 6th to 8th slowest answer of 600-750, and it moved by a
| fifth or more between windows of the same load (bench/results/soak_2026-11-29.md). An
| interval that holds both 1× and the goal's 1.2× says the run cannot tell a miss from
| that noise; one wholly above 1.2× says something grew.
|
| Pure: no I/O, and the random source can be given, so that a test can fix it.
*/

/** The p-th percentile (0-100) of sorted `values`, by the rule of load_tools' `percentile`. */
function percentileOfSorted(sorted: Float64Array, p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

function redrawn(values: readonly number[], random: () => number) {
  const drawn = new Float64Array(values.length)
  for (let index = 0; index < values.length; index++) {
    drawn[index] = values[Math.floor(random() * values.length)]
  }
  return drawn.sort()
}

/**
 * The `confidence` interval (0.95: from the 2.5th to the 97.5th percentile of the
 * redrawn ratios) of percentile(`late`, p) ÷ percentile(`early`, p), rounded to 0.01;
 * null when either list is empty or a redrawn early percentile is 0.
 */
export function percentileRatioInterval(
  late: readonly number[],
  early: readonly number[],
  p: number,
  {
    resamples = 2000,
    confidence = 0.95,
    random = Math.random,
  }: { resamples?: number; confidence?: number; random?: () => number } = {}
): [number, number] | null {
  if (late.length === 0 || early.length === 0) return null
  const ratios = new Float64Array(resamples)
  for (let index = 0; index < resamples; index++) {
    const below = percentileOfSorted(redrawn(early, random), p)
    if (below <= 0) return null
    ratios[index] = percentileOfSorted(redrawn(late, random), p) / below
  }
  ratios.sort()
  const tail = (1 - confidence) / 2
  const at = (share: number) =>
    ratios[Math.min(resamples - 1, Math.max(0, Math.floor(share * resamples)))]
  return [+at(tail).toFixed(2), +at(1 - tail).toFixed(2)]
}
