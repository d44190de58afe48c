/*
| One SQL statement on a connection's pool, below the query builder, rows as plain
| objects. Named statements are prepared once per pooled connection and then only
| bound and executed: no knex query building, no parse, and (after PostgreSQL's
| five custom plans) no planning, which were large shares of a Portal read
| (bench/README.md). Errors are the driver's, so a database outage still answers 503.
|
| Name only statements whose plan does not depend on the values: a generic plan is
| chosen once for all of them. Statements whose best plan does (a LIKE pattern, a
| reference lookup) go unnamed: parsed and planned each time, still without knex.
*/
import { createHash } from 'node:crypto'
import pg, { type PoolClient, type QueryResult } from 'pg'
import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { acquirePgConnection, releasePgConnection } from '#platform/pg_connection'

/** `text` uses `$1`-style placeholders; `name` prepares it (see above), undefined does not. */
export async function directQuery<Row = Record<string, any>>(
  name: string | undefined,
  text: string,
  values: unknown[],
  connection: QueryClientContract = db.connection()
): Promise<Row[]> {
  const client = await acquirePgConnection(connection)
  try {
    const result = await submit(client, name, text, values)
    return result.rows as Row[]
  } finally {
    await releasePgConnection(client, connection)
  }
}

/**
 * The statement as a driver Query built from its text, so the driver takes it as it
 * is: given a config object instead, it copies it property by property (descriptors
 * and all) on every statement, a visible share of a short read's CPU.
 */
function submit(
  client: PoolClient,
  name: string | undefined,
  text: string,
  values: unknown[]
): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query(text, values, (error, result) =>
      error ? reject(error) : resolve(result)
    )
    // Read when the query is sent: a named statement is prepared once per connection.
    if (name !== undefined) Object.assign(query, { name })
    client.query(query)
  })
}

interface Positional {
  name: string
  text: string
}
// Statement texts are built by the code from constants (never from input), so the
// cache holds one entry per statement shape.
const positionalTexts = new Map<string, Positional>()

/** `?` placeholders (knex style) as `$1`..., with a name derived from the text. */
function positional(sql: string): Positional {
  let cached = positionalTexts.get(sql)
  if (!cached) {
    let index = 0
    cached = {
      name: `q:${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`,
      text: sql.replace(/\?/g, () => `$${++index}`),
    }
    positionalTexts.set(sql, cached)
  }
  return cached
}

/**
 * A statement written with `?` placeholders (the same text bench scripts explain),
 * run through directQuery: prepared under a name derived from its text when
 * `prepare` is true.
 */
export function statementQuery<Row = Record<string, any>>(
  connection: QueryClientContract,
  statement: { sql: string; bindings: unknown[] },
  options: { prepare: boolean }
): Promise<Row[]> {
  const { name, text } = positional(statement.sql)
  return directQuery<Row>(options.prepare ? name : undefined, text, statement.bindings, connection)
}
