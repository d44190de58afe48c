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

export function progressLine(output: NodeJS.WriteStream) {
  const started = performance.now()
  let drawnAt = 0
  let drawn = false
  return {
    update: (progress: { lines: number; bytes: number }) => {
      const now = performance.now()
      if (now - drawnAt < REDRAW_EVERY_MS) return
      drawnAt = now
      drawn = true
      const seconds = Math.max((now - started) / 1000, 0.001)
      const rate = Math.round(progress.lines / seconds)
      output.write(
        `\r\x1b[K${progress.lines.toLocaleString('en')} lines  ${rate.toLocaleString('en')} rows/s  ` +
          `${formatBytes(progress.bytes)} read  ${seconds.toFixed(1)} s`
      )
    },
    done: () => {
      if (drawn) output.write('\r\x1b[K')
    },
  }
}
