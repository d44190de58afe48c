/*
| Response bodies are plain data built by transformers, so `JSON.stringify` writes
| them exactly as the framework's default (`safeStringify`) would, without the
| replacer the default runs on every value to turn BigInts into strings and to drop
| circular references: that replacer is most of the cost of a large body (figures:
| bench/README.md). Those two cases make `JSON.stringify` throw, and only then is the
| default used.
*/
import { safeStringify } from '@poppinss/utils/json'

export function serializeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  } catch {
    return safeStringify(value)
  }
}
