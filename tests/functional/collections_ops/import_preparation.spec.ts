/*
| The import prepares its lines (check, seal, project, COPY text) on a worker thread
| (app/services/collections/import/prepared_lines.ts), and on its own thread when asked.
| Both ways must give the same lines, in order, whatever the
| chunking of the input, stop at the same bad line, and seal what the server opens.
*/
import { test } from '@japa/runner'
import { Readable } from 'node:stream'
import { eventOf, jsonLinesOf, transactionLine, type Line } from '#tests/helpers/collections_import'
import { preparedLines } from '#services/collections/import/prepared_lines'
import type { PreparedReply } from '#services/collections/import/prepared_replies'
import { openProjection, openSnapshot } from '#services/collections/history/evidence_snapshot'
import { ImportLineError } from '#services/collections/import/import_line'
import { retentionMonths } from '#services/collections/import/import_transactions'

const context = () => ({ currencies: new Set(['PHP', 'USD']), months: retentionMonths() })

/** The input as chunks of `size` bytes (a line spans many of them when small). */
function chunked(text: string, size: number) {
  const bytes = Buffer.from(text)
  const chunks: Buffer[] = []
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size))
  return Readable.from(chunks)
}

/** A bytea in COPY text format (`\\x` and hex digits) as its bytes. */
const copiedBytes = (field: string) => Buffer.from(field.replace(/^\\\\x/, ''), 'hex')

/** Every prepared line with its ciphertexts opened, and the error it stopped on. */
async function collect(input: Readable, where: 'thread' | 'here') {
  const lines: unknown[] = []
  const replies: PreparedReply[] = []
  let error: ImportLineError | null = null
  try {
    for await (const reply of preparedLines(input, context(), where)) {
      replies.push(reply)
      for (const line of reply.lines) {
        lines.push({
          ...line,
          transaction: Buffer.from(line.transaction).toString(),
          events: line.events.map((event) => {
            const core = Buffer.from(event.core).toString().split('\t')
            const [id, , , , , , , , , snapshot, , projection] = core
            return {
              ...event,
              core: core.filter((_, index) => index !== 9 && index !== 11),
              snapshot: snapshot === '\\N' ? null : openSnapshot(id, copiedBytes(snapshot)),
              projection: projection === '\\N' ? null : openProjection(id, copiedBytes(projection)),
            }
          }),
        })
      }
    }
  } catch (caught) {
    if (!(caught instanceof ImportLineError)) throw caught
    error = caught
  }
  const last = replies.at(-1)
  return { lines, error: error?.message ?? null, lastLine: last?.lastLine, bytes: last?.bytesRead }
}

function sample(count: number, extra: Array<Line | string> = []) {
  const lines: Array<Line | string> = Array.from({ length: count }, (_, index) =>
    transactionLine(1, {
      merchant_transaction_id: `ORD-${index}`,
      events: [
        eventOf({ kind: 'merchant_request.validated', body: { amount: `${index}.00`, note: 'é' } }),
        eventOf({ body_text: 'ok' }),
      ],
    })
  )
  return jsonLinesOf([...lines.slice(0, count / 2), '', ...extra, ...lines.slice(count / 2)]) + '\n'
}

/** `count` lines of about 2 KB each; the line numbered `bad` (from 1) is not JSON. */
function padded(count: number, bad?: number) {
  return (
    Array.from({ length: count }, (_, index) =>
      index + 1 === bad
        ? '{not json'
        : JSON.stringify(
            transactionLine(1, {
              merchant_transaction_id: `PART-${index}`,
              events: [eventOf({ body_text: `${index} ${'z'.repeat(2000)}` })],
            })
          )
    ).join('\n') + '\n'
  )
}

test.group('collections:import › where lines are prepared', () => {
  test('the preparation thread gives the lines prepared here, whatever the chunking', async ({
    assert,
  }) => {
    const text = sample(40)
    const here = await collect(chunked(text, text.length), 'here')
    assert.lengthOf(here.lines, 40)
    assert.isNull(here.error)
    assert.equal(here.bytes, Buffer.byteLength(text))
    assert.equal(here.lastLine, 41)
    for (const size of [7, 1024, 64 * 1024]) {
      assert.deepEqual(await collect(chunked(text, size), 'thread'), here, `chunks of ${size}`)
    }
    const opened = (here.lines[0] as any).events[0]
    assert.deepEqual(opened.snapshot, {
      kind: 'json',
      text: '{"amount":"0.00","note":"é"}',
    })
    assert.equal(opened.projection.capture_status, 'available')
    assert.deepInclude(opened.projection.payload, { amount: '0.00' })
  })

  test('both stop at the same bad line, with every line before it', async ({ assert }) => {
    const text = sample(20, ['{"merchant_id": 1, "environment": "staging"}'])
    const here = await collect(chunked(text, 4096), 'here')
    assert.lengthOf(here.lines, 10)
    assert.match(here.error ?? '', /^line 12: /)
    assert.deepEqual(await collect(chunked(text, 5), 'thread'), here)
  })

  test('a thread reused after an import that stopped on a bad line prepares the next one whole', async ({
    assert,
  }) => {
    const bad = sample(400, ['not json'])
    const good = sample(30)
    const stopped = await collect(chunked(bad, 512), 'thread')
    assert.match(stopped.error ?? '', /^line 202: /)
    assert.deepEqual(
      await collect(chunked(good, 512), 'thread'),
      await collect(chunked(good, good.length), 'here')
    )
  })

  test('an input of many chunks comes back in order from the thread, as prepared here', async ({
    assert,
  }) => {
    // About 6 MiB: more than the thread is sent ahead of the import at once.
    const text = padded(3000)
    const here = await collect(chunked(text, text.length), 'here')
    assert.lengthOf(here.lines, 3000)
    for (const size of [64 * 1024, 1024 * 1024, 3 * 1024 * 1024 + 17]) {
      assert.deepEqual(await collect(chunked(text, size), 'thread'), here, `chunks of ${size}`)
    }
  })

  test('a bad line megabytes in stops there, with every line before it', async ({ assert }) => {
    const text = padded(3000, 2500)
    const here = await collect(chunked(text, text.length), 'here')
    assert.lengthOf(here.lines, 2499)
    assert.match(here.error ?? '', /^line 2500: /)
    assert.deepEqual(await collect(chunked(text, 256 * 1024), 'thread'), here)
  })

  test('a line past 16 MiB is refused by number, after every line before it', async ({
    assert,
  }) => {
    const long = JSON.stringify({ merchant_id: 1, note: 'y'.repeat(16 * 1024 * 1024) })
    const text = `${padded(700)}${long}\n${padded(3)}`
    const here = await collect(chunked(text, 1024 * 1024), 'here')
    assert.lengthOf(here.lines, 700)
    assert.equal(here.error, `line 701: longer than ${16 * 1024 * 1024} bytes`)
    assert.deepEqual(await collect(chunked(text, 1024 * 1024), 'thread'), here)
    assert.deepEqual(await collect(chunked(text, 4096), 'thread'), here)
  })

  test('two imports prepared at once each get their own lines', async ({ assert }) => {
    const first = sample(60)
    const second = sample(24)
    const [a, b] = await Promise.all([
      collect(chunked(first, 300), 'thread'),
      collect(chunked(second, 300), 'thread'),
    ])
    assert.deepEqual(a, await collect(chunked(first, first.length), 'here'))
    assert.deepEqual(b, await collect(chunked(second, second.length), 'here'))
  })
})
