/*
| The import's preparation thread (prepared_lines.ts): reads the input chunks it is
| sent, splits them into lines, prepares each (prepared_replies.ts, the loop the
| import's own thread runs too) and sends the prepared lines back in order. One import at a time: `start`, chunks, `end`. A bad
| line ends the import here with the lines before it sent; chunks still arriving for
| it are passed over until the next `start`.
*/
import { parentPort } from 'node:worker_threads'
import { on } from 'node:events'
import { evidenceCipher } from '#services/collections/history/evidence_cipher'
import type { PreparationContext } from '#services/collections/import/import_preparation'
import { PreparedReplies, type PreparedReply } from '#services/collections/import/prepared_replies'
import type { PreparerMessage } from '#services/collections/import/prepared_lines'

/** A reply is sent when this many lines, or bytes of rows, are ready. */
const REPLY_LINES = 500
const REPLY_BYTES = 4 * 1024 * 1024

const port = parentPort!
const inbox = on(port, 'message')
async function next(): Promise<PreparerMessage> {
  const { value } = await inbox.next()
  return (value as [PreparerMessage])[0]
}

/** A reply, its lines' bytes transferred rather than copied. */
const send = (reply: PreparedReply) => port.postMessage(reply, reply.buffer ? [reply.buffer] : [])

async function prepareImport(context: PreparationContext) {
  const replies = new PreparedReplies(context)
  let chunksRead = 0
  async function* chunks() {
    for (;;) {
      // What is ready goes back before waiting, and says which chunks are read, so
      // that the caller sends more.
      send(replies.take({ chunksRead }))
      const message = await next()
      if (message.type !== 'chunk') return
      chunksRead++
      yield Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength)
    }
  }
  const due = () => replies.lines >= REPLY_LINES || replies.bytes >= REPLY_BYTES
  for await (const reply of replies.of(chunks(), due)) {
    send({ ...reply, chunksRead })
  }
}

for (;;) {
  const start = await next()
  if (start.type !== 'start') continue
  try {
    await prepareImport({
      currencies: new Set(start.currencies),
      months: start.months,
      seal: evidenceCipher(start.keys).seal,
    })
  } catch (error) {
    port.postMessage({
      failed: error instanceof Error ? (error.stack ?? error.message) : String(error),
    })
  }
}
