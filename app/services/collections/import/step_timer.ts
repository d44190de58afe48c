/*
| Milliseconds spent in each step of the import's batch writes, for the benchmarks
| (ImportOptions.timings): nothing is measured without a record to add them to.
*/

/** `tick(step)` adds the time since the previous tick (or since made) to `timings[step]`. */
export function stepTimer(timings?: Record<string, number>): (step: string) => void {
  if (!timings) return () => {}
  let since = performance.now()
  return (step) => {
    const now = performance.now()
    timings[step] = (timings[step] ?? 0) + now - since
    since = now
  }
}
