/*
| The loop that prepares an import's lines (import_preparation.ts) in order and hands
| them on in replies, for both places it runs: the preparation thread
| (import_preparation_worker.ts) and the import's own thread (prepared_lines.ts). Pure,
| like the preparation.
*/
import { ImportLineError } from '#services/collections/import/import_line'
import {
  prepareLine,
  type PreparationContext,
  withBytes,
  type PreparedLine,
} from '#services/collections/import/import_preparation'
import { jsonLines } from '#services/collections/import/json_lines'

/** Prepared lines in input order, and how far the input has been read. */
export interface PreparedReply {
  /** Input chunks the thread has taken so far. */
  chunksRead: number
  lines: Array<PreparedLine<Uint8Array>>
  /** The bytes of the lines' COPY text (withBytes): transferred, not copied. */
  buffer: ArrayBuffer | null
  /** The last line number read (blank lines count) and the bytes read up to it. */
  lastLine: number
  bytesRead: number
  /** The input ended: nothing follows. */
  done?: true
  /** The first bad line: nothing from it on is prepared. */
  bad?: { line: number; reason: string }
}

/** The lines of one import, prepared into the reply being filled. */
export class PreparedReplies {
  private prepared: PreparedLine[] = []
  private lastLine = 0
  private bytesRead = 0
  /** Bytes of rows in the reply being filled. */
  bytes = 0

  constructor(private context: PreparationContext) {}

  /** Lines in the reply being filled. */
  get lines() {
    return this.prepared.length
  }

  /** The reply so far, with `end`; the next one starts empty where it stopped. */
  take(end: Partial<Omit<PreparedReply, 'lines' | 'buffer'>> = {}): PreparedReply {
    const { lines, buffer } = withBytes(this.prepared)
    this.prepared = []
    this.bytes = 0
    return {
      chunksRead: 0,
      lines,
      buffer,
      lastLine: this.lastLine,
      bytesRead: this.bytesRead,
      ...end,
    }
  }

  /**
   * Prepares the lines of `input` in order. The reply so far is yielded whenever `due()`
   * says so after a line, and last with `done`, or with `bad` at the first bad line.
   */
  async *of(
    input: AsyncIterable<Buffer | string>,
    due: () => boolean
  ): AsyncGenerator<PreparedReply> {
    try {
      for await (const line of jsonLines(input)) {
        this.lastLine = line.number
        this.bytesRead = line.bytesRead
        if (line.text.trim() !== '') {
          const prepared = prepareLine(line.number, line.text, this.context)
          this.prepared.push(prepared)
          this.bytes += prepared.bytes
        }
        if (due()) yield this.take()
      }
    } catch (error) {
      if (!(error instanceof ImportLineError)) throw error
      yield this.take({ bad: { line: error.line, reason: error.reason } })
      return
    }
    yield this.take({ done: true })
  }
}
