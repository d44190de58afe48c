import { test } from '@japa/runner'
import { copyChunks } from '#services/collections/import/copy_stream'

const CHUNK_BYTES = 256 * 1024
const joined = (chunks: Uint8Array[]) => Buffer.concat(chunks)

test.group('COPY rows sent as UTF-8 chunks', () => {
  test('the chunks are the rows joined, encoded as UTF-8, in order', ({ assert }) => {
    const rows = Array.from(
      { length: 5000 },
      (_, index) => `${index}\tcafé ☕ 𝄞 ${'x'.repeat(index % 300)}\n`
    )
    const chunks = [...copyChunks(rows)]
    assert.isAbove(chunks.length, 1)
    assert.deepEqual(joined(chunks), Buffer.from(rows.join('')))
  })

  test('no chunk is longer than 256 KiB unless it is one row alone', ({ assert }) => {
    const long = `${'é'.repeat(200 * 1024)}\n`
    const rows = [
      'a\tb\n',
      long,
      'c\td\n',
      ...Array.from({ length: 3000 }, () => 'y'.repeat(200) + '\n'),
    ]
    const chunks = [...copyChunks(rows)]
    assert.deepEqual(joined(chunks), Buffer.from(rows.join('')))
    for (const chunk of chunks) {
      if (chunk.length > CHUNK_BYTES) assert.equal(Buffer.from(chunk).toString(), long)
      else assert.isAtMost(chunk.length, CHUNK_BYTES)
    }
    assert.isTrue(chunks.some((chunk) => Buffer.from(chunk).toString() === long))
  })

  test('a chunk already handed on is never written again', ({ assert }) => {
    const rows = Array.from({ length: 4000 }, (_, index) => `${index}\t${'z'.repeat(150)}\n`)
    const seen: Uint8Array[] = []
    const copies: Buffer[] = []
    for (const chunk of copyChunks(rows)) {
      seen.push(chunk)
      copies.push(Buffer.from(chunk))
    }
    assert.deepEqual(
      seen.map((chunk) => Buffer.from(chunk)),
      copies
    )
  })

  test('rows in pieces, text and UTF-8 bytes, give the same bytes as joined text', ({ assert }) => {
    const rows = Array.from({ length: 3000 }, (_, index) => [
      `${index}\t`,
      Buffer.from(`ñ ${'b'.repeat(index % 200)}`),
      index % 7 === 0 ? new Uint8Array(300 * 1024).fill(97) : '',
      '\n',
    ])
    const text = rows
      .map((row) =>
        row
          .map((piece) => (typeof piece === 'string' ? piece : Buffer.from(piece).toString()))
          .join('')
      )
      .join('')
    const chunks = [...copyChunks(rows)]
    assert.deepEqual(joined(chunks), Buffer.from(text))
    for (const chunk of chunks) {
      if (chunk.length > CHUNK_BYTES) assert.equal(chunk.length, 300 * 1024)
    }
  })

  test('no rows, no chunk', ({ assert }) => {
    assert.deepEqual([...copyChunks([])], [])
  })
})
