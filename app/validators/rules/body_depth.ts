/*
| Nesting depth of a parsed body. Walkers of request input (trimming,
| the invalid-text check, validators) recurse, so a body nested a few thousand levels
| deep would overflow the stack: the depth is measured first, without recursion, and
| a body deeper than MAX_BODY_DEPTH is a 422 on `body`. No Portal body comes close.
*/
import ApiError from '#exceptions/api_error'

export const MAX_BODY_DEPTH = 32

/** Whether `value` nests objects or arrays deeper than `max` levels (iterative). */
export function nestedDeeperThan(value: unknown, max = MAX_BODY_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!
    if (item === null || typeof item !== 'object') continue
    if (depth >= max) return true
    for (const child of Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
    }
  }
  return false
}

/** Throws 422 VALIDATION_ERROR on `body` when `value` nests deeper than allowed. */
export function ensureBodyDepth(value: unknown) {
  if (nestedDeeperThan(value)) {
    throw ApiError.field(
      'body',
      `The request body must not nest deeper than ${MAX_BODY_DEPTH} levels.`
    )
  }
}
