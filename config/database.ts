import env from '#start/env'
import pg from 'pg'
import { defineConfig } from '@adonisjs/lucid'
import { parseTimestamptz } from '#platform/pg_timestamptz'
import { SCHEMA_DRAFT_PATH } from '#providers/schema_generation_provider'

// int8 (ids, counts) as numbers; numeric (money) stays a string.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))
// timestamptz as the same Dates, read faster in the UTC form these sessions receive.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, parseTimestamptz)

/*
| One PostgreSQL connection. DATABASE_URL is always set by the time this file is
| read: by the operator, or by start/runtime.ts pointing at the embedded cluster.
| Every session runs in UTC and statements are bounded so that a sick database
| yields 503s instead of hung requests. JIT compilation is off: it pays only for long
| analytical queries, and PostgreSQL cannot estimate joins on parameter ranges (the
| metrics and chart statement looks like millions of rows), so a chart spent most of
| its time compiling (docs/reporting.md › JIT is off).
*/
const statementTimeout = env.get('DATABASE_STATEMENT_TIMEOUT_MS') ?? 15_000

/*
| A transaction left idle (a bug that never commits, an await of something outside the
| database while it holds row locks) is ended by PostgreSQL after a minute, its locks
| freed, instead of holding them until the process dies. No transaction of the service
| idles that long: requests hash, encode and mail outside their transactions, and the
| import's transactions only wait for their own statements.
*/
const IDLE_IN_TRANSACTION_MS = 60_000

/*
| Idle connections close after 5 minutes, not tarn's 30 s. At 30 s, the soak's bursts
| of requests made the pool open about seven connections every 5 minutes, and the
| request that waits for a new one pays 14-29 ms, then each prepared statement's first
| run on it about 9 ms more (a cold catalog cache and planning) than on a warm one
| (bench/results/soak_2026-11-30.md). Not never: an idle connection can be cut by a
| firewall or a NAT gateway without either end knowing (AWS's gateways after 350 s),
| and min stays 0 as knex advises for the same reason.
*/
const pool = {
  min: 0,
  max: 10,
  idleTimeoutMillis: 300_000,
  // Bounds waiting for a connection (also when the server is unreachable).
  acquireTimeoutMillis: 5_000,
  createTimeoutMillis: 5_000,
  propagateCreateError: false,
  afterCreate: (connection: any, done: (error: Error | null, connection: any) => void) => {
    connection.query(
      `SET TIME ZONE 'UTC'; SET statement_timeout = ${Number(statementTimeout)}; ` +
        `SET idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_MS}; SET jit = off`,
      (error: Error | null) => done(error, connection)
    )
  },
}

/*
| DATABASE_READ_URL (decisions.md §3): a streaming replica for the read-heavy routes
| (collections reads, metrics, charts), used through `readConnection()` of
| app/support/read_connection.ts. Authentication, writes and reads that must see their
| own writes stay on the primary.
*/
const readUrl = env.get('DATABASE_READ_URL')

const dbConfig = defineConfig({
  connection: 'postgres',
  connections: {
    ...(readUrl
      ? { read: { client: 'pg' as const, connection: { connectionString: readUrl }, pool } }
      : {}),
    postgres: {
      client: 'pg',
      connection: {
        connectionString: env.get('DATABASE_URL'),
      },
      pool,
      migrations: {
        naturalSort: true,
        paths: ['database/migrations'],
      },
      // Lucid writes a draft; providers/schema_generation_provider.ts decides whether
      // it replaces database/schema.ts (docs/operations.md › Schema generation and
      // rollbacks). Production never generates.
      schemaGeneration: {
        enabled: env.get('NODE_ENV') !== 'production',
        outputPath: SCHEMA_DRAFT_PATH,
        rulesPaths: ['./database/schema_rules.js'],
      },
    },
  },
})

export default dbConfig
