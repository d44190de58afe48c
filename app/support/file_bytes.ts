/*
| A small file's bytes, read into a buffer that is used again for the next file.
|
| Every new Buffer is an ArrayBuffer the garbage collector counts and sweeps: a 2 MiB
| upload read with `readFile` for each request made the server's major collections,
| and their pauses, more frequent under upload load (bench/README.md ›
| noisy_neighbour). A few buffers of the largest size are kept for the next reader;
| a reader that finds none free gets a new one.
*/
import { open } from 'node:fs/promises'

/** A file on this host's disk and its length in bytes. */
export interface FileOnDisk {
  path: string
  size: number
}

export class ReusedFileBuffers {
  readonly #free: Buffer[] = []

  /** `capacity`: the largest file, in bytes; `kept`: buffers kept for reuse. */
  constructor(
    readonly capacity: number,
    readonly kept: number
  ) {}

  /**
   * Calls `use` with the first `size` bytes of the file at `path` (at most `capacity`,
   * fewer if the file is shorter). The bytes are valid only until `use` settles: they
   * must not be kept.
   */
  async withBytes<T>({ path, size }: FileOnDisk, use: (bytes: Buffer) => Promise<T>): Promise<T> {
    if (size > this.capacity) throw new RangeError(`${size} bytes is more than ${this.capacity}`)
    const buffer = this.#free.pop() ?? Buffer.allocUnsafeSlow(this.capacity)
    try {
      const file = await open(path, 'r')
      let length = 0
      try {
        while (length < size) {
          const { bytesRead } = await file.read(buffer, length, size - length, length)
          if (bytesRead === 0) break
          length += bytesRead
        }
      } finally {
        await file.close()
      }
      return await use(buffer.subarray(0, length))
    } finally {
      if (this.#free.length < this.kept) this.#free.push(buffer)
    }
  }
}
