/*
|--------------------------------------------------------------------------
| HTTP server entrypoint
|--------------------------------------------------------------------------
|
| The "server.ts" file is the entrypoint for starting the AdonisJS HTTP
| server. Either you can run this file directly or use the "serve"
| command to run this file and monitor file changes
|
*/

import { setFlagsFromString } from 'node:v8'

process.env.NODE_ENV ??= 'development'

// The old generation may grow to twice its live size before a full (mark-compact)
// collection. V8's own factor follows how cheap its collections look, and under a
// steady read load it settled near 1.5: a full collection every 2-3 s, each stopping
// every request for 6-20 ms plus marking steps of up to 44 ms, and a third of other
// merchants' slowest `/portal/me` requests were the ones that met them. At twice, the
// same load saw one in two minutes, and the heap committed 83 MB instead of 72-111 MB
// (bench/README.md › noisy_neighbour). V8 reads the factor whenever it sets a limit,
// so setting it here, before the application loads, is in time.
setFlagsFromString('--heap-growing-percent=100')

// Tracing (only with OTEL_EXPORTER_OTLP_ENDPOINT) comes first: its instrumentations
// patch node:http and pg as they load (start/tracing.ts).
const { startTracing, stopTracing } = await import('#start/tracing')
await startTracing()

await import('reflect-metadata')
const { Ignitor, prettyPrintError } = await import('@adonisjs/core')
const { createPortalHttpServer } = await import('#http/client_error')

/**
 * URL to the application root. AdonisJS need it to resolve
 * paths to file and directories for scaffolding commands
 */
const APP_ROOT = new URL('../', import.meta.url)

/**
 * The importer is used to import files in context of the
 * application.
 */
const IMPORTER = (filePath: string) => {
  if (filePath.startsWith('./') || filePath.startsWith('../')) {
    return import(new URL(filePath, APP_ROOT).href)
  }
  return import(filePath)
}

new Ignitor(APP_ROOT, { importer: IMPORTER })
  .tap((app) => {
    app.booting(async () => {
      const { prepareRuntime } = await import('#start/runtime')
      await prepareRuntime(app, { httpServer: true })
    })
    // Drain first (readiness 503, Connection: close, SHUTDOWN_DRAIN_MS), then stop.
    app.listen('SIGTERM', async () => {
      const { drain } = await import('#support/drain')
      await drain()
      await app.terminate()
      // The spans of the last requests, statements and mails, after all of them ended.
      await stopTracing()
    })
    app.listenIf(app.managedByPm2, 'SIGINT', () => app.terminate().then(stopTracing))
  })
  .httpServer()
  // Parser refusals (bad request line, oversized headers) answer in the JSON envelope.
  .start(createPortalHttpServer)
  .catch((error) => {
    process.exitCode = 1
    prettyPrintError(error)
  })
