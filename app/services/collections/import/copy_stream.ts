/*
| COPY ... FROM STDIN through the raw pg client (pg-copy-streams: one round trip for
| many rows instead of one per row), for the import's batch writes and the bench
| datasets; and the savepoint that lets a direct COPY fall back when a row is
| already stored.
*/
import { pipeline } from 'node:stream/promises'
import { from as copyFrom } from 'pg-copy-streams'

/** The raw pg client under Lucid's pool: COPY needs it, and it shares the app's settings. */
export interface PgClient {
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>
  query<T>(submittable: T): T
}

/** Bytes of each CopyData chunk: one message per row would dominate. */
const CHUNK_BYTES = 256 * 1024

/** COPY text: a string, or bytes already in UTF-8 (prepared on another thread). */
export type CopyPiece = string | Uint8Array
/** One row of COPY text, whole or in pieces; the last ends with its newline. */
export type CopyRow = string | readonly CopyPiece[]

/** Streams `rows` into `columns` of `table`. */
export async function copyRows(
  client: PgClient,
  table: string,
  columns: string[],
  rows: Iterable<CopyRow>
) {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`))
  await pipeline(copyChunks(rows), stream)
}

/**
 * The rows as UTF-8 chunks of at most CHUNK_BYTES (a longer piece is a chunk of its
 * own). Each piece is written into the chunk as it comes: joining the rows into one
 * string and encoding that cost the import's thread five times as much, most of it
 * flattening the joined string (bench/README.md › collections_import.ts).
 */
export function* copyChunks(rows: Iterable<CopyRow>): Generator<Uint8Array> {
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  let used = 0
  const single: CopyPiece[] = ['']
  for (const row of rows) {
    let pieces: readonly CopyPiece[]
    if (typeof row === 'string') {
      single[0] = row
      pieces = single
    } else {
      pieces = row
    }
    for (const piece of pieces) {
      const text = typeof piece === 'string'
      // A UTF-16 code unit takes at most 3 bytes in UTF-8.
      const most = text ? piece.length * 3 : piece.length
      if (used + most > CHUNK_BYTES) {
        if (used > 0) {
          yield chunk.subarray(0, used)
          chunk = Buffer.allocUnsafe(CHUNK_BYTES)
          used = 0
        }
        if (most > CHUNK_BYTES) {
          yield text ? Buffer.from(piece) : piece
          continue
        }
      }
      if (text) {
        used += chunk.write(piece, used)
      } else {
        chunk.set(piece, used)
        used += piece.length
      }
    }
  }
  if (used > 0) yield chunk.subarray(0, used)
}

/**
 * Runs `work` under a savepoint. A unique violation (a row already stored, or twice in
 * the rows) undoes what it did and gives false, for the caller's fallback; any other
 * error is thrown.
 */
export async function unlessStored(
  client: PgClient,
  savepoint: string,
  work: () => Promise<void>
): Promise<boolean> {
  await client.query(`SAVEPOINT ${savepoint}`)
  try {
    await work()
    await client.query(`RELEASE SAVEPOINT ${savepoint}`)
    return true
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error
    await client.query(`ROLLBACK TO SAVEPOINT ${savepoint}`)
    return false
  }
}
