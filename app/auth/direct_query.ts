/*
| One SQL statement on the primary's pool, below the query builder: a named
| (prepared once per connection) statement, rows as plain objects. For the
| per-request authentication reads only, where the profile showed Lucid and knex
| query building at 13 % of a Portal read (bench/README.md › Hot paths).
| Errors are the driver's, so a database outage still answers 503.
*/
import db from '@adonisjs/lucid/services/db'

interface PooledClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: any[] }>
}
interface KnexPool {
  acquireConnection(): Promise<PooledClient>
  releaseConnection(connection: PooledClient): Promise<unknown>
}

export async function directQuery<Row = Record<string, any>>(
  name: string,
  text: string,
  values: unknown[]
): Promise<Row[]> {
  const pool = (db.connection().getWriteClient() as unknown as { client: KnexPool }).client
  const connection = await pool.acquireConnection()
  try {
    const result = await connection.query({ name, text, values })
    return result.rows as Row[]
  } finally {
    await pool.releaseConnection(connection)
  }
}
