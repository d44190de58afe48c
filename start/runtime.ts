/*
| Runtime prerequisites, resolved in the `booting` hook of every entry point
| (bin/server.ts, bin/console.ts, bin/test.ts) before config files are read.
|
| - every environment refuses a configuration value that cannot mean what its
|   variable says (start/configuration_check.ts);
| - production refuses to start without APP_KEY and DATABASE_URL;
| - development and test get a persistent local APP_KEY under tmp/ and, when
|   DATABASE_URL is unset, an embedded PostgreSQL.
*/
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import type { ApplicationService } from '@adonisjs/core/types'
import { EMBEDDED_PORTS, startEmbeddedPostgres } from '#start/embedded_postgres'
import { ConfigurationError, configurationProblems } from '#start/configuration_check'

export let usesEmbeddedDatabase = false

function localAppKey(app: ApplicationService): string {
  const file = app.tmpPath('app_key')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(app.tmpPath(), { recursive: true })
  const key = randomBytes(32).toString('base64url')
  writeFileSync(file, key, { mode: 0o600 })
  return key
}

export async function prepareRuntime(
  app: ApplicationService,
  options: { httpServer?: boolean } = {}
) {
  const { default: env } = await import('#start/env')
  const environment = env.get('NODE_ENV')
  const problems = configurationProblems(process.env)
  if (problems.length > 0) throw new ConfigurationError(problems)

  if (environment === 'production') {
    const missing = ['APP_KEY', 'DATABASE_URL'].filter((name) => !env.get(name as 'APP_KEY'))
    if (missing.length > 0) {
      throw new ConfigurationError(missing.map((name) => `${name} is required in production`))
    }
    // The key signs links and keys the HMACs of client secrets and OTPs.
    if (env.get('APP_KEY')!.length < 32) {
      throw new ConfigurationError(['APP_KEY must be at least 32 characters'])
    }
    return
  }

  if (!env.get('APP_KEY')) env.set('APP_KEY', localAppKey(app))
  if ((env.get('APP_KEY') ?? '').length < 32) {
    throw new ConfigurationError(['APP_KEY must be at least 32 characters'])
  }

  if (!env.get('DATABASE_URL')) {
    const defaultPort = EMBEDDED_PORTS[environment]
    const port = env.get('EMBEDDED_POSTGRES_PORT') ?? defaultPort
    const embedded = await startEmbeddedPostgres({
      rootDir: app.makePath(),
      // Another port is another cluster: two clusters on one data directory corrupt it.
      name: port === defaultPort ? environment : `${environment}-${port}`,
      port,
      log: (message) => process.stderr.write(`${message}\n`),
    })
    env.set('DATABASE_URL', embedded.url)
    usesEmbeddedDatabase = true
    app.terminating(async () => {
      const db = await app.container.make('lucid.db')
      await db.manager.closeAll()
      await embedded.stop()
    })
    if (options.httpServer && environment === 'development') {
      app.starting(() => prepareDevelopmentDatabase(app))
    }
  }
}

/**
 * `npm run dev` on the embedded database: apply migrations, and on the first run
 * seed the demo data and print its logins.
 */
async function prepareDevelopmentDatabase(app: ApplicationService) {
  const db = await app.container.make('lucid.db')
  const { MigrationRunner } = await import('@adonisjs/lucid/migration')
  const migrator = new MigrationRunner(db, app, { direction: 'up' })
  await migrator.run()
  if (migrator.error) throw migrator.error

  const { hasAnyMerchant, seedDemoData } = await import('#database/demo/demo_data')
  if (await hasAnyMerchant()) return
  const demo = await seedDemoData()
  process.stdout.write(
    [
      '',
      'Demo data created (shown once; run `node ace demo:seed` for fresh credentials):',
      JSON.stringify(demo, null, 2),
      'Log in:',
      `  curl -s -X POST http://localhost:${process.env.PORT ?? 3333}/api/v1/auth/login \\`,
      `    -u '${demo.portal_client.client_id}:${demo.portal_client.client_secret}' \\`,
      `    -H 'X-Service-Application: merchant_portal' -H 'Content-Type: application/json' \\`,
      `    -d '{"username":"${demo.administrator.username}","password":"${demo.administrator.password}"}'`,
      '',
    ].join('\n')
  )
}
