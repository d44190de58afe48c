/*
| One SQL statement on the primary's pool, below the query builder: a named
| (prepared once per connection) statement, rows as plain objects. For the
| per-request authentication reads only, where the profile showed Lucid and knex
| query building at 13 % of a Portal read (bench/README.md › Hot paths).
| Errors are the driver's, so a database outage still answers 503.
*/
import db from '@adonisjs/lucid/services/db'
import type { LucidModel } from '@adonisjs/lucid/types/model'

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

/**
 * A persisted model instance from a row of its columns, as `$createFromAdapterResult`
 * makes it but without its deep copy of the attributes into `$original` (lodash
 * merge walks every luxon DateTime: a third of the hydration cost on the Portal hot
 * path). The copy here is shallow, which is the same thing for models whose columns
 * are all scalars or DateTimes (immutable), as User and Merchant are.
 */
export function hydrate<Model extends LucidModel>(
  model: Model,
  row: Record<string, unknown>
): InstanceType<Model> {
  model.boot()
  const instance = new model() as InstanceType<Model>
  instance.$consumeAdapterResult(row)
  instance.$original = { ...instance.$attributes }
  instance.$setOptionsAndTrx(undefined)
  instance.$isPersisted = true
  instance.$isLocal = false
  return instance
}
