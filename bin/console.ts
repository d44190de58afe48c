/*
|--------------------------------------------------------------------------
| Ace entry point
|--------------------------------------------------------------------------
|
| The "console.ts" file is the entrypoint for booting the AdonisJS
| command-line framework and executing commands.
|
| Commands do not boot the application, unless the currently running command
| has "options.startApp" flag set to true.
|
*/

const { defaultNodeEnvironment } = await import('#start/node_environment')
process.env.NODE_ENV ??= defaultNodeEnvironment(import.meta.url)

await import('reflect-metadata')
const { Ignitor, prettyPrintError } = await import('@adonisjs/core')
const { stopRequestHeld } = await import('#console/stop_request')

// Kept before ace takes the arguments out of process.argv.
const commandLine = process.argv.slice(2)

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
      await prepareRuntime(app)
      // With the configuration checked, before the command's own modules load.
      const { lowerBatchCommandPriority } = await import('#console/batch_commands')
      lowerBatchCommandPriority(commandLine)
    })
    // A long operator command that holds the stop request handles SIGTERM and SIGINT
    // itself (app/console/stop_request.ts): terminating here would close the database
    // pool under its batches and its audit record.
    app.listen('SIGTERM', () => stopRequestHeld() || app.terminate())
    app.listenIf(app.managedByPm2, 'SIGINT', () => stopRequestHeld() || app.terminate())
  })
  .ace()
  .handle(process.argv.splice(2))
  .catch(async (error) => {
    process.exitCode = 1
    const { reportEntryPointFailure } = await import('#start/entry_point_failure')
    await reportEntryPointFailure(error, prettyPrintError)
  })
