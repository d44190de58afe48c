import { defineConfig } from '@adonisjs/core/app'

export default defineConfig({
  commands: [
    () => import('@adonisjs/core/commands'),
    () => import('@adonisjs/lucid/commands'),
    () => import('@adonisjs/mail/commands'),
  ],
  providers: [
    () => import('@adonisjs/core/providers/app_provider'),
    () => import('@adonisjs/core/providers/hash_provider'),
    { file: () => import('@adonisjs/core/providers/repl_provider'), environment: ['repl', 'test'] },
    () => import('@adonisjs/core/providers/vinejs_provider'),
    () => import('@adonisjs/lucid/database_provider'),
    () => import('@adonisjs/auth/auth_provider'),
    () => import('@adonisjs/redis/redis_provider'),
    () => import('@adonisjs/limiter/limiter_provider'),
    () => import('@adonisjs/mail/mail_provider'),
    () => import('@adonisjs/drive/drive_provider'),
    // Guards database/schema.ts around Lucid's schema:generate (migration commands).
    { file: () => import('#providers/schema_generation_provider'), environment: ['console'] },
  ],
  preloads: [
    () => import('#start/routes'),
    () => import('#start/kernel'),
    () => import('#start/shutdown'),
    () => import('#start/metrics'),
  ],
  tests: {
    suites: [
      // Generous bounds that only catch a test that hangs: on a busy 2-core machine the
      // same work takes many times longer (issue 37 › 9). Slower tests set their own.
      { files: ['tests/unit/**/*.spec.{ts,js}'], name: 'unit', timeout: 30_000 },
      { files: ['tests/functional/**/*.spec.{ts,js}'], name: 'functional', timeout: 120_000 },
      // Several production builds on one database and Redis, and a streaming replica:
      // only through `npm run test:cluster`, which builds first (tests/cluster/README.md).
      ...(process.env.CLUSTER_SUITE
        ? [{ files: ['tests/cluster/**/*.spec.{ts,js}'], name: 'cluster', timeout: 360_000 }]
        : []),
      // One test that fails on purpose: only for the exit code test of a failing run
      // (tests/functional/hardening/exit_codes.spec.ts), never in `npm test`.
      ...(process.env.FAILING_RUN_SUITE
        ? [{ files: ['tests/fixtures/failing_run/*.spec.{ts,js}'], name: 'failing_run' }]
        : []),
    ],
    // The cluster suite exits once its report is printed: a handle it leaves open
    // after teardown (not yet found) must not keep CI waiting.
    forceExit: Boolean(process.env.CLUSTER_SUITE),
  },
  metaFiles: [],
})
