/*
| app/support/file_bytes.ts: a file's bytes in a buffer that the next reader gets
| again; at most `kept` buffers are kept, and a file over `capacity` is refused.
*/
import { test } from '@japa/runner'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ReusedFileBuffers } from '#support/file_bytes'

test.group('ReusedFileBuffers', (group) => {
  let directory: string
  group.each.setup(async () => {
    directory = await mkdtemp(join(tmpdir(), 'file-bytes-'))
    return () => rm(directory, { recursive: true, force: true })
  })

  async function file(name: string, bytes: Buffer) {
    const path = join(directory, name)
    await writeFile(path, bytes)
    return path
  }

  test('gives the bytes of the file, exactly its size', async ({ assert }) => {
    const buffers = new ReusedFileBuffers(1024, 1)
    const content = Buffer.from('the bytes of a small file')
    const path = await file('a', content)
    const read = await buffers.withBytes({ path, size: content.length }, async (bytes) =>
      Buffer.from(bytes)
    )
    assert.deepEqual(read, content)
  })

  test('the next file is read into the same buffer, nothing of the previous one left', async ({
    assert,
  }) => {
    const buffers = new ReusedFileBuffers(1024, 1)
    const first = await file('first', Buffer.alloc(600, 0x61))
    const second = await file('second', Buffer.alloc(10, 0x62))
    const seen: ArrayBufferLike[] = []
    await buffers.withBytes({ path: first, size: 600 }, async (bytes) => {
      seen.push(bytes.buffer)
    })
    const read = await buffers.withBytes({ path: second, size: 10 }, async (bytes) => {
      seen.push(bytes.buffer)
      return Buffer.from(bytes)
    })
    assert.strictEqual(seen[0], seen[1])
    assert.deepEqual(read, Buffer.alloc(10, 0x62))
  })

  test('readers at the same time get buffers of their own; at most `kept` are kept', async ({
    assert,
  }) => {
    const buffers = new ReusedFileBuffers(64, 1)
    const one = await file('one', Buffer.alloc(8, 1))
    const two = await file('two', Buffer.alloc(8, 2))
    const used: ArrayBufferLike[] = []
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const first = buffers.withBytes({ path: one, size: 8 }, async (bytes) => {
      used.push(bytes.buffer)
      await held
      return Buffer.from(bytes)
    })
    const second = buffers.withBytes({ path: two, size: 8 }, async (bytes) => {
      used.push(bytes.buffer)
      release()
      return Buffer.from(bytes)
    })
    assert.deepEqual(await first, Buffer.alloc(8, 1))
    assert.deepEqual(await second, Buffer.alloc(8, 2))
    assert.notStrictEqual(used[0], used[1])

    // One of the two was kept: two readers in turn get the same one again.
    const next: ArrayBufferLike[] = []
    await buffers.withBytes({ path: one, size: 8 }, async (bytes) => {
      next.push(bytes.buffer)
    })
    await buffers.withBytes({ path: two, size: 8 }, async (bytes) => {
      next.push(bytes.buffer)
    })
    assert.strictEqual(next[0], next[1])
  })

  test('a file shorter than the size asked gives the bytes it has', async ({ assert }) => {
    const buffers = new ReusedFileBuffers(64, 1)
    const path = await file('short', Buffer.from('abc'))
    const length = await buffers.withBytes({ path, size: 10 }, async (bytes) => bytes.length)
    assert.equal(length, 3)
  })

  test('a size over the capacity is refused before anything is read', async ({ assert }) => {
    const buffers = new ReusedFileBuffers(4, 1)
    await assert.rejects(
      () => buffers.withBytes({ path: join(directory, 'absent'), size: 5 }, async () => undefined),
      /5 bytes is more than 4/
    )
  })

  test('the buffer is given back when the reader fails', async ({ assert }) => {
    const buffers = new ReusedFileBuffers(64, 1)
    const path = await file('f', Buffer.alloc(4, 7))
    const seen: ArrayBufferLike[] = []
    await assert.rejects(() =>
      buffers.withBytes({ path, size: 4 }, async (bytes) => {
        seen.push(bytes.buffer)
        throw new Error('refused')
      })
    )
    await buffers.withBytes({ path, size: 4 }, async (bytes) => {
      seen.push(bytes.buffer)
    })
    assert.strictEqual(seen[0], seen[1])
  })
})
