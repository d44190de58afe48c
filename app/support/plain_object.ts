/** A JSON object: not null, not an array (JSON bodies, import lines, captured payloads). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
