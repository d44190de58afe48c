import env from '#start/env'
import pg from 'pg'
import { defineConfig } from '@adonisjs/lucid'

// int8 (ids, counts) as numbers; numeric (money) stays a string.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))

/*
| One PostgreSQL connection. DATABASE_URL is always set by the time this file is
| read: by the operator, or by start/runtime.ts pointing at the embedded cluster.
| Every session runs in UTC and statements are bounded so that a sick database
| yields 503s instead of hung requests.
*/
const statementTimeout = env.get('DATABASE_STATEMENT_TIMEOUT_MS') ?? 15_000

const dbConfig = defineConfig({
  connection: 'postgres',
  connections: {
    postgres: {
      client: 'pg',
      connection: {
        connectionString: env.get('DATABASE_URL'),
        statement_timeout: statementTimeout,
        connectionTimeoutMillis: 5_000,
        options: '-c timezone=UTC',
      },
      pool: {
        min: 0,
        max: 10,
        acquireTimeoutMillis: 10_000,
        propagateCreateError: false,
      },
      migrations: {
        naturalSort: true,
        paths: ['database/migrations'],
      },
      schemaGeneration: {
        enabled: true,
        rulesPaths: ['./database/schema_rules.js'],
      },
    },
  },
})

export default dbConfig
