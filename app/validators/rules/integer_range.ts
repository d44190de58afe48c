/*
| A positive integer written in decimal as a query string carries it: digits only, no
| sign, no leading zero, from 1 to a bound. The rule is one regular expression built
| from the bound, so the validator and the OpenAPI document (its `pattern`) are the
| same rule, and a client that generates values from the document never sends one
| the server refuses.
*/

/** `[a-b]`, or the digit itself when a = b. */
function digitRange(from: number, to: number) {
  return from === to ? String(from) : `[${from}-${to}]`
}

/** Any `count` digits. */
function anyDigits(count: number) {
  if (count === 0) return ''
  return count === 1 ? '[0-9]' : `[0-9]{${count}}`
}

/**
 * The anchored expression of the canonical decimal integers from 1 to `max`: every
 * shorter number, then for each digit of `max` the numbers that share its prefix and
 * have a smaller digit there, then `max` itself.
 */
export function positiveIntegerUpTo(max: number): RegExp {
  if (!Number.isSafeInteger(max) || max < 1) throw new Error(`Not a positive bound: ${max}`)
  const digits = String(max)
  const alternatives: string[] = []
  if (digits.length > 1) {
    const more = digits.length - 2
    alternatives.push(more === 0 ? '[1-9]' : `[1-9][0-9]{0,${more}}`)
  }
  for (let index = 0; index < digits.length; index++) {
    const lowest = index === 0 ? 1 : 0
    const below = Number(digits[index]) - 1
    if (below < lowest) continue
    alternatives.push(
      `${digits.slice(0, index)}${digitRange(lowest, below)}${anyDigits(digits.length - index - 1)}`
    )
  }
  alternatives.push(digits)
  return new RegExp(`^${positiveIntegerGroup(alternatives)}$`)
}

const positiveIntegerGroup = (alternatives: string[]) => `(?:${alternatives.join('|')})`

/** The same expression unanchored, as a group to compose into a larger one. */
export function positiveIntegerUpToGroup(max: number): string {
  return positiveIntegerUpTo(max).source.slice(1, -1)
}
