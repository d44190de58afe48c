/*
| A one-line progress display for long operator commands, redrawn in place on a
| terminal (standard error, so standard output keeps its single JSON object).
*/
const REDRAW_EVERY_MS = 250

function formatBytes(bytes: number) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`
}

const count = (value: number) => value.toLocaleString('en')

/** The import's progress: lines, rows/s, bytes read. */
export function describeLinesRead(progress: { lines: number; bytes: number }, seconds: number) {
  const rate = Math.round(progress.lines / seconds)
  return `${count(progress.lines)} lines  ${count(rate)} rows/s  ${formatBytes(progress.bytes)} read`
}

/** Progress through a known number of rows: done of due, percent, rows/s. */
export function describeRowsDone(progress: { done: number; due: number }, seconds: number) {
  const percent = progress.due > 0 ? Math.min(100, (100 * progress.done) / progress.due) : 100
  const rate = Math.round(progress.done / seconds)
  return `${count(progress.done)} of ${count(progress.due)} rows (${percent.toFixed(1)} %)  ${count(rate)} rows/s`
}

export function progressLine<Progress>(
  output: NodeJS.WriteStream,
  describe: (progress: Progress, seconds: number) => string
) {
  const started = performance.now()
  let drawnAt = 0
  let drawn = false
  return {
    update: (progress: Progress) => {
      const now = performance.now()
      if (now - drawnAt < REDRAW_EVERY_MS) return
      drawnAt = now
      drawn = true
      const seconds = Math.max((now - started) / 1000, 0.001)
      output.write(`\r\x1b[K${describe(progress, seconds)}  ${seconds.toFixed(1)} s`)
    },
    done: () => {
      if (drawn) output.write('\r\x1b[K')
    },
  }
}
