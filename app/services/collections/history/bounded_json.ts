/*
| JSON text of captured bodies decoded within the projection's bounds
| (projection.ts › RESPONSE_DECODE_BOUND_BYTES, DECODE_DEPTH_BOUND).
*/
import { DECODE_DEPTH_BOUND } from '#services/collections/history/projection'

type Decoded = { ok: true; value: unknown } | { ok: false; why: 'oversize' | 'deep' | 'invalid' }

/**
 * JSON text to a value within the bounds. The nesting depth is measured on the text
 * before parsing, so a hostile body never builds a deep structure.
 */
export function decodeJson(
  text: string,
  maxBytes: number | null,
  parsed?: { value: unknown }
): Decoded {
  if (maxBytes !== null && Buffer.byteLength(text) > maxBytes) return { ok: false, why: 'oversize' }
  if (nestingDepth(text) > DECODE_DEPTH_BOUND) return { ok: false, why: 'deep' }
  if (parsed) return { ok: true, value: parsed.value }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false, why: 'invalid' }
  }
}

/** Deepest `[`/`{` nesting outside string literals. */
export function nestingDepth(text: string): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index)
    if (inString) {
      if (char === 0x5c)
        index++ // backslash: skip the escaped character
      else if (char === 0x22) inString = false
    } else if (char === 0x22) {
      inString = true
    } else if (char === 0x5b || char === 0x7b) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (char === 0x5d || char === 0x7d) {
      depth--
    }
  }
  return deepest
}
