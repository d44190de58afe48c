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
  type PreparedLine,
} from '#services/collections/import/import_preparation'
import { jsonLines } from '#services/collections/import/json_lines'

/** Prepared lines in input order, and how far the input has been read. */
export interface PreparedReply {
  /** Input chunks the thread has taken so far. */
  chunksRead: number
  lines: PreparedLine[]
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
  private reply: PreparedReply = { chunksRead: 0, lines: [], lastLine: 0, bytesRead: 0 }
  /** Bytes of rows in the reply being filled. */
  bytes = 0

  constructor(private context: PreparationContext) {}

  /** Lines in the reply being filled. */
  get lines() {
    return this.reply.lines.length
  }

  /** The reply so far, with `end`; the next one starts empty where it stopped. */
  take(end: Partial<PreparedReply> = {}): PreparedReply {
    const reply = { ...this.reply, ...end }
    this.reply = {
      chunksRead: 0,
      lines: [],
      lastLine: this.reply.lastLine,
      bytesRead: this.reply.bytesRead,
    }
    this.bytes = 0
    return reply
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
        this.reply.lastLine = line.number
        this.reply.bytesRead = line.bytesRead
        if (line.text.trim() !== '') {
          const prepared = prepareLine(line.number, line.text, this.context)
          this.reply.lines.push(prepared)
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
