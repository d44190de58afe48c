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

/** Streams `rows` (COPY text, each with its newline) into `columns` of `table`. */
export async function copyRows(
  client: PgClient,
  table: string,
  columns: string[],
  rows: Iterable<string>
) {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`))
  // Rows go out in chunks of about 256 KiB: one CopyData message per row would dominate.
  await pipeline(
    (function* () {
      let chunk = ''
      for (const row of rows) {
        chunk += row
        if (chunk.length >= 256 * 1024) {
          yield chunk
          chunk = ''
        }
      }
      if (chunk) yield chunk
    })(),
    stream
  )
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
