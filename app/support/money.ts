/*
| Money and rates of the metrics summary and chart (portal-api.md › Metrics summary;
| decisions.md §2): amounts are decimal strings with two fractional digits, summed as
| integer cents in BigInt, never as floats. PostgreSQL hands `numeric` sums over as
| strings; they are parsed exactly here.
*/

/** A decimal string (`"1500.5"`, `"-3.25"`, `"0"`) as integer cents; more than two nonzero decimals is an error. */
export function parseCents(value: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(value.trim())
  if (!match) throw new Error(`not a decimal amount: ${value}`)
  const [, sign, whole, fraction = ''] = match
  if (/[1-9]/.test(fraction.slice(2))) throw new Error(`amount finer than a cent: ${value}`)
  const cents = BigInt(whole) * 100n + BigInt(fraction.slice(0, 2).padEnd(2, '0'))
  return sign === '-' ? -cents : cents
}

/** Integer cents as a two-decimal string: 150050n → `"1500.50"`. */
export function formatCents(cents: bigint): string {
  const negative = cents < 0n
  const absolute = negative ? -cents : cents
  const whole = absolute / 100n
  const fraction = String(absolute % 100n).padStart(2, '0')
  return `${negative ? '-' : ''}${whole}.${fraction}`
}

/**
 * `successful / total × 100`, rounded half-up to two places: null when there is no
 * transaction, `"0.00"` when none succeeded. Exact: the percentage in hundredths is
 * floor((2·s·10000 + t) / 2t).
 */
export function successRatePercent(successful: bigint, total: bigint): string | null {
  if (total === 0n) return null
  const hundredths = (2n * successful * 10_000n + total) / (2n * total)
  return `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`
}
