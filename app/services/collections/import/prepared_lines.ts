/*
| The lines of an import, checked, sealed and made COPY text (import_preparation.ts),
| in order, ahead of the batch writes.
|
| Preparing is most of an import's CPU. On the import's own thread it also held back
| the database's replies to the batch being written, so the two took turns. It runs on
| a worker thread instead (import_preparation_worker.ts), beside the writes: the thread
| is sent the input in chunks, at most PREPARED_AHEAD_CHUNKS ahead of what the import
| has taken, so memory stays bounded by those chunks whatever the file's size. One
| thread is kept idle between imports (never keeping the process alive); a thread that
| failed, or whose import stopped for another reason than its input, is ended.
|
| An aborted `signal` ends the lines early, without waiting for the next reply: the
| thread is ended and the input closed (the import stops on SIGTERM or SIGINT).
|
| The thread seals with the keys of evidence_snapshot.ts (evidenceKeys); when asked,
| the lines are prepared here, on this thread.
*/
import { Worker } from 'node:worker_threads'
import { setFlagsFromString } from 'node:v8'
import { setImmediate } from 'node:timers/promises'
import { siblingModule } from '#platform/sibling_module'
import { evidenceKeys, seal } from '#services/collections/history/evidence_snapshot'
import type { EvidenceKeys } from '#services/collections/history/evidence_cipher'
import { ImportLineError } from '#services/collections/import/import_line'
import { PreparedReplies, type PreparedReply } from '#services/collections/import/prepared_replies'

/**
 * Input chunks the preparation thread may be sent beyond what the import has taken
 * (16 MiB at the import's 1 MiB chunks). With 4, less than a batch (8 MiB), the thread
 * stopped while the import waited for the batch being written, and the next batch was
 * still being prepared when that write ended: 16 gave 0.70-0.78x a bare COPY against
 * 0.60-0.76x, better in each of five alternating pairs (bench/README.md ›
 * collections_import.ts).
 */
const PREPARED_AHEAD_CHUNKS = 16

export type PreparerMessage =
  | { type: 'start'; currencies: string[]; months: number; keys: EvidenceKeys }
  | { type: 'chunk'; bytes: Uint8Array }
  | { type: 'end' }

type ThreadReply = PreparedReply | { failed: string }

export interface PreparationInput {
  currencies: ReadonlySet<string>
  months: number
}

/**
 * The input's lines, prepared, in order; a bad line ends it with an ImportLineError
 * after the lines before it. `where` is for tests: both ways give the same lines.
 */
export async function* preparedLines(
  input: AsyncIterable<Buffer | string>,
  context: PreparationInput,
  where: 'thread' | 'here' = 'thread',
  signal?: AbortSignal
): AsyncGenerator<PreparedReply> {
  freeArrayBuffersWhereAllocated()
  const replies =
    where === 'thread'
      ? preparedOnThread(input, context, evidenceKeys(), signal)
      : preparedHere(input, context, signal)
  for await (const reply of replies) {
    yield reply
    if (reply.bad) throw new ImportLineError(reply.bad.line, reply.bad.reason)
  }
}

/**
 * Each seal allocates a few small ArrayBuffers (the ciphertext, the tag). V8 frees them
 * on a helper thread by default, and that thread and the sealing one then contend on
 * malloc's locks: a seal cost 2.6 times as much, and the import's preparation about
 * 15 % more (bench/README.md › collections_import.ts). The flag is process-wide; imports
 * run in operator commands, never in the server.
 */
let sweepingSet = false
function freeArrayBuffersWhereAllocated() {
  if (sweepingSet) return
  setFlagsFromString('--no-concurrent-array-buffer-sweeping')
  sweepingSet = true
}

async function* preparedHere(
  input: AsyncIterable<Buffer | string>,
  { currencies, months }: PreparationInput,
  signal?: AbortSignal
): AsyncGenerator<PreparedReply> {
  const replies = new PreparedReplies({ currencies, months, seal })
  let sliceStartedAt = performance.now()
  // Preparing is synchronous: the batch being written gets its replies from the
  // database every 2 ms, not once per chunk of input.
  const due = () => performance.now() - sliceStartedAt > 2
  for await (const reply of replies.of(input, due)) {
    yield reply
    if (reply.done || reply.bad || signal?.aborted) return
    await setImmediate()
    sliceStartedAt = performance.now()
  }
}

let idleThread: Worker | null = null

function takeThread(): Worker {
  const thread = idleThread
  idleThread = null
  if (thread) {
    thread.ref()
    return thread
  }
  const { url, execArgv } = siblingModule(import.meta.url, 'import_preparation_worker')
  const created = new Worker(url, { execArgv })
  created.on('exit', () => {
    if (idleThread === created) idleThread = null
  })
  return created
}

function releaseThread(thread: Worker, reusable: boolean) {
  if (reusable && idleThread === null) {
    thread.unref()
    idleThread = thread
  } else {
    void thread.terminate()
  }
}

async function* preparedOnThread(
  input: AsyncIterable<Buffer | string>,
  { currencies, months }: PreparationInput,
  keys: EvidenceKeys,
  signal?: AbortSignal
): AsyncGenerator<PreparedReply> {
  const thread = takeThread()
  const replies: ThreadReply[] = []
  let failure: Error | null = null
  let wake: (() => void) | null = null
  const notify = () => {
    wake?.()
    wake = null
  }
  const onMessage = (reply: ThreadReply) => {
    replies.push(reply)
    notify()
  }
  const onError = (error: Error) => {
    failure ??= error
    notify()
  }
  const onExit = (code: number) => {
    failure ??= new Error(`the import's preparation thread exited (code ${code})`)
    notify()
  }
  thread.on('message', onMessage).on('error', onError).on('exit', onExit)
  signal?.addEventListener('abort', notify)

  const reader = input[Symbol.asyncIterator]()
  let sent = 0
  let taken = 0
  let reading = false
  let inputEnded = false
  const feed = () => {
    if (reading || inputEnded || sent - taken >= PREPARED_AHEAD_CHUNKS) return
    reading = true
    reader.next().then(
      (next) => {
        reading = false
        if (closed) return
        if (next.done) {
          inputEnded = true
          thread.postMessage({ type: 'end' } satisfies PreparerMessage)
          return
        }
        // A copy of its own, transferred: a chunk may view a larger buffer (a caller's
        // whole input, Buffer's pool), all of which the message would copy.
        const bytes = new Uint8Array(
          typeof next.value === 'string' ? Buffer.from(next.value) : next.value
        )
        thread.postMessage({ type: 'chunk', bytes } satisfies PreparerMessage, [bytes.buffer])
        sent++
        feed()
      },
      (error: Error) => {
        reading = false
        inputEnded = true
        onError(error)
      }
    )
  }

  let finished = false
  let closed = false
  try {
    thread.postMessage({
      type: 'start',
      currencies: [...currencies],
      months,
      keys,
    } satisfies PreparerMessage)
    feed()
    for (;;) {
      while (replies.length === 0) {
        if (failure) throw failure
        if (signal?.aborted) return
        await new Promise<void>((resolve) => (wake = resolve))
      }
      const reply = replies.shift()!
      if ('failed' in reply) throw new Error(reply.failed)
      taken = reply.chunksRead
      feed()
      // The thread's part of this import is over: it can take the next one.
      if (reply.done || reply.bad) finished = true
      yield reply
      if (finished) return
    }
  } finally {
    closed = true
    thread.off('message', onMessage).off('error', onError).off('exit', onExit)
    signal?.removeEventListener('abort', notify)
    releaseThread(thread, finished && failure === null)
    // Stopped early (a bad line, a failure): the input is closed as a loop over it would.
    if (!inputEnded) void Promise.resolve(reader.return?.()).catch(() => {})
  }
}
