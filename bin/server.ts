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
import { defaultNodeEnvironment } from '#start/node_environment'

process.env.NODE_ENV ??= defaultNodeEnvironment(import.meta.url)

// V8's growing factor, in this one place: the old generation grows to 1.2 times its
// live size before a full collection. With the young generation the deployment gives
// this thread, little is promoted, so full collections stay rare, and the old space
// (hence RSS) holds steady instead of cycling (docs/operations.md › Full garbage
// collections). V8 reads the factor whenever it sets a limit, so setting it here,
// before the app loads, is in time; it overrides a command-line value.
setFlagsFromString('--heap-growing-percent=20')
// The deployment's young generation is this thread's alone (start/thread_heaps.ts).
const { keepYoungGenerationFlagsToThisThread } = await import('#start/thread_heaps')
keepYoungGenerationFlagsToThisThread()

// Tracing (only with OTEL_EXPORTER_OTLP_ENDPOINT) comes first: its instrumentations
// patch node:http and pg as they load (start/tracing.ts).
const { startTracing, stopTracing } = await import('#start/tracing')
await startTracing()

await import('reflect-metadata')
const { Ignitor, prettyPrintError } = await import('@adonisjs/core')
// Imported once the environment is loaded (it reads REQUEST_TIMEOUT_SECONDS), in booting.
let createPortalHttpServer: typeof import('#http/client_error').createPortalHttpServer

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
      // Upload folders that servers killed mid-request left behind.
      const { sweepLeftoverUploadFolders } = await import('#http/upload_folders')
      await sweepLeftoverUploadFolders()
      const clientError = await import('#http/client_error')
      createPortalHttpServer = clientError.createPortalHttpServer
    })
    // Drain first (readiness 503, Connection: close, SHUTDOWN_DRAIN_MS), then stop.
    app.listen('SIGTERM', async () => {
      const { drain } = await import('#support/drain')
      await drain()
      // Handlers whose clients have gone still use the database: wait for them before
      // the providers close it (#http/handlers_in_flight).
      const { default: server } = await import('@adonisjs/core/services/server')
      const nodeServer = server.getNodeServer()
      if (nodeServer) {
        const { closeAndSettle } = await import('#http/handlers_in_flight')
        await closeAndSettle(nodeServer)
      }
      await app.terminate()
      // The spans of the last requests, statements and mails, after all of them ended.
      await stopTracing()
    })
    app.listenIf(app.managedByPm2, 'SIGINT', () => app.terminate().then(stopTracing))
  })
  .httpServer()
  // Parser refusals (bad request line, oversized headers) answer in the JSON envelope.
  .start((handler) => createPortalHttpServer(handler))
  .catch(async (error) => {
    process.exitCode = 1
    const { reportEntryPointFailure } = await import('#start/entry_point_failure')
    await reportEntryPointFailure(error, prettyPrintError)
  })
