/*
| The import's preparation thread (prepared_lines.ts): reads the input chunks it is
| sent, splits them into lines, prepares each (import_preparation.ts) and sends the
| prepared lines back in order. One import at a time: `start`, chunks, `end`. A bad
| line ends the import here with the lines before it sent; chunks still arriving for
| it are passed over until the next `start`.
*/
import { parentPort } from 'node:worker_threads'
import { on } from 'node:events'
import { evidenceCipher } from '#services/collections/history/evidence_cipher'
import { ImportLineError } from '#services/collections/import/import_line'
import {
  prepareLine,
  type PreparationContext,
} from '#services/collections/import/import_preparation'
import { jsonLines } from '#services/collections/import/json_lines'
import type { PreparedReply, PreparerMessage } from '#services/collections/import/prepared_lines'

/** A reply is sent when this many lines, or bytes of rows, are ready. */
const REPLY_LINES = 500
const REPLY_BYTES = 4 * 1024 * 1024

const port = parentPort!
const inbox = on(port, 'message')
async function next(): Promise<PreparerMessage> {
  const { value } = await inbox.next()
  return (value as [PreparerMessage])[0]
}

async function prepareImport(context: PreparationContext) {
  let reply: PreparedReply = { chunksRead: 0, lines: [], lastLine: 0, bytesRead: 0 }
  let replyBytes = 0
  let chunksRead = 0
  const send = (end: Partial<PreparedReply> = {}) => {
    port.postMessage({ ...reply, chunksRead, ...end } satisfies PreparedReply)
    reply = { chunksRead, lines: [], lastLine: reply.lastLine, bytesRead: reply.bytesRead }
    replyBytes = 0
  }
  async function* chunks() {
    for (;;) {
      // What is ready goes back before waiting, and says which chunks are read, so
      // that the caller sends more.
      send()
      const message = await next()
      if (message.type !== 'chunk') return
      chunksRead++
      yield Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength)
    }
  }
  try {
    for await (const line of jsonLines(chunks())) {
      reply.lastLine = line.number
      reply.bytesRead = line.bytesRead
      if (line.text.trim() === '') continue
      const prepared = prepareLine(line.number, line.text, context)
      reply.lines.push(prepared)
      replyBytes += prepared.bytes
      if (reply.lines.length >= REPLY_LINES || replyBytes >= REPLY_BYTES) send()
    }
    send({ done: true })
  } catch (error) {
    if (!(error instanceof ImportLineError)) throw error
    send({ bad: { line: error.line, reason: error.reason } })
  }
}

for (;;) {
  const start = await next()
  if (start.type !== 'start') continue
  try {
    await prepareImport({
      currencies: new Set(start.currencies),
      months: start.months,
      seal: evidenceCipher(start.key).seal,
    })
  } catch (error) {
    port.postMessage({
      failed: error instanceof Error ? (error.stack ?? error.message) : String(error),
    })
  }
}
