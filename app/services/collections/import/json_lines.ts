/*
| JSON Lines framing for the collections import: splits a byte stream on `\n`
| (a trailing `\r` is dropped), decodes each line as strict UTF-8 and numbers it from
| 1. Memory is bounded by the longest line, which is itself bounded: a stream of any
| size is read in constant memory, and a line over the bound is an error naming it.
*/
import { ImportLineError } from '#services/collections/import/import_line'

/** A line longer than this is refused (a 2 MiB snapshot fits with room to spare). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024

export interface JsonLine {
  /** 1-based line number in the input. */
  number: number
  text: string
  /** Bytes read so far, this line and its newline included. */
  bytesRead: number
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

function decode(number: number, bytes: Buffer): string {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length
  try {
    return decoder.decode(bytes.subarray(0, end))
  } catch {
    throw new ImportLineError(number, 'not valid UTF-8')
  }
}

export async function* jsonLines(
  input: AsyncIterable<Buffer | string>,
  maxLineBytes = MAX_LINE_BYTES
) {
  let number = 0
  let bytesRead = 0
  let pending: Buffer[] = []
  let pendingLength = 0
  for await (const chunk of input) {
    const buffer: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    let start = 0
    while (start < buffer.length) {
      const newline = buffer.indexOf(10, start)
      const end = newline === -1 ? buffer.length : newline
      if (pendingLength + (end - start) > maxLineBytes) {
        throw new ImportLineError(number + 1, `longer than ${maxLineBytes} bytes`)
      }
      if (newline === -1) {
        pending.push(buffer.subarray(start))
        pendingLength += buffer.length - start
        bytesRead += buffer.length - start
        break
      }
      const piece = buffer.subarray(start, newline)
      const bytes = pendingLength === 0 ? piece : Buffer.concat([...pending, piece])
      pending = []
      pendingLength = 0
      bytesRead += newline - start + 1
      number++
      yield { number, text: decode(number, bytes), bytesRead } satisfies JsonLine
      start = newline + 1
    }
  }
  if (pendingLength > 0) {
    number++
    yield { number, text: decode(number, Buffer.concat(pending)), bytesRead } satisfies JsonLine
  }
}
