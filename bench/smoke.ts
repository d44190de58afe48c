/*
| The smoke mode of the bench scripts: `--smoke` (or BENCH_SMOKE=1) makes a script's
| rounds, seconds, requests and dataset tiny, so that CI (.ci/bench_smoke) runs every
| bench in seconds and a bench that stops working fails the build. A smoke run's
| figures mean nothing; what it checks is that the script ran end to end and measured
| something. Flags and variables given explicitly still win over the tiny defaults.
*/
export const SMOKE = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1'

/** The default of a knob: `full` in a real run, `tiny` in smoke mode. */
export function sized<T>(full: T, tiny: T): T {
  return SMOKE ? tiny : full
}

/**
 * In smoke mode, throws (so the script exits non-zero, after its cleanup) unless every
 * figure is a number above zero: a bench that ran but measured nothing gives null,
 * NaN or zero requests. Does nothing in a real run, whose figures a person reads.
 */
export function expectFigures(bench: string, figures: Record<string, unknown>) {
  if (!SMOKE) return
  const missing = Object.entries(figures)
    .filter(([, value]) => typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    .map(([name, value]) => `${name} = ${JSON.stringify(value)}`)
  if (Object.keys(figures).length === 0 || missing.length > 0) {
    throw new Error(`${bench} smoke run measured nothing for: ${missing.join(', ') || 'no figure'}`)
  }
  console.error(`${bench}: smoke run ok (${Object.keys(figures).length} figures)`)
}
