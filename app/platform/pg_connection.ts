/*
| A pg connection of a Lucid connection's pool, taken and given back through knex's
| client (a transaction's own connection inside one), so that the pool's bounds,
| acquire timeout and errors still apply to work done below the query builder: named
| statements (direct_query.ts) and COPY (the collections import). knex declares
| `acquireConnection` and `releaseConnection` on its Client but does not document
| them (app/platform/README.md).
*/
import type { PoolClient } from 'pg'
import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'

/** A connection of `connection`'s pool; give it back with releasePgConnection. */
export function acquirePgConnection(
  connection: QueryClientContract = db.connection()
): Promise<PoolClient> {
  return connection.getWriteClient().client.acquireConnection()
}

/** Gives back a connection taken with acquirePgConnection from the same `connection`. */
export async function releasePgConnection(
  client: PoolClient,
  connection: QueryClientContract = db.connection()
): Promise<void> {
  await connection.getWriteClient().client.releaseConnection(client)
}
