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

/** Streams `rows` (COPY text, each with its newline) into `columns` of `table`. */
export async function copyRows(
  client: PgClient,
  table: string,
  columns: string[],
  rows: Iterable<string>
) {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`))
  await pipeline(copyChunks(rows), stream)
}

/**
 * The rows as UTF-8 chunks of at most CHUNK_BYTES (a longer row is a chunk of its
 * own). Each row is written into the chunk as it comes: joining the rows into one
 * string and encoding that cost the import's thread five times as much, most of it
 * flattening the joined string (bench/README.md › collections_import.ts).
 */
export function* copyChunks(rows: Iterable<string>): Generator<Buffer> {
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  let used = 0
  for (const row of rows) {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    if (used + row.length * 3 > CHUNK_BYTES) {
      if (used > 0) {
        yield chunk.subarray(0, used)
        chunk = Buffer.allocUnsafe(CHUNK_BYTES)
        used = 0
      }
      if (row.length * 3 > CHUNK_BYTES) {
        yield Buffer.from(row)
        continue
      }
    }
    used += chunk.write(row, used)
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
